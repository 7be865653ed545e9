-- The request id of the upload (X-Request-Id), sent with the hand-off so hook-service logs the same id.
alter table hook_outbox add column request_id varchar(64);
