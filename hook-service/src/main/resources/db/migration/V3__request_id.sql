-- The request id of the intake call (X-Request-Id), logged with each delivery and passed on to management-service.
alter table hook_event add column request_id varchar(64);
