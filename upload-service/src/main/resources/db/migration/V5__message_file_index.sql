-- File ids are 128 random bits made by the service, and the local store creates each file exclusively under its id,
-- so the unique constraint only cost time: on H2 its check was a quarter of the message writer's work under load.
-- Downloads still find a message by its file id through a plain index.
alter table message drop constraint message_file_unique;
create index message_file_idx on message (file_id);
