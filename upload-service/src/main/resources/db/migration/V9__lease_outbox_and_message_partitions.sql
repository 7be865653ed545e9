-- upload-service on PostgreSQL (issue 38; README, Storage and Retention).
--
-- * hook_outbox is claimed through service-support's LeaseQueue, as hook-service's queue is: uuid ids, a lease
--   (lease_owner, lease_until) that no index holds, so taking and handing back an event is a HOT update
--   (fillfactor 70), and a due index walked in order with every other plan switched off. It holds only the events
--   hook-service has not accepted yet; stored_at is when its message was logged.
-- * message is partitioned by day (UTC) of created_at and dropped a day at a time, with its stored files, once
--   older than upload.retention.period; a day whose events still wait in the outbox is kept until they are sent.
--   Ids keep coming from one sequence, going on from the highest so far.
-- * erasure records each erasure of an upload user (a privacy request): who asked, when, and what it removed.

alter table hook_outbox rename to hook_outbox_v8;
alter table message rename to message_v8;
alter index message_file_idx rename to message_v8_file_idx;
alter index message_account_idx rename to message_v8_account_idx;
alter index message_pkey rename to message_v8_pkey;
alter index hook_outbox_pkey rename to hook_outbox_v8_pkey;
alter index hook_outbox_due_idx rename to hook_outbox_v8_due_idx;

create sequence message_id_seq;
select setval('message_id_seq', coalesce((select max(message_id) from message_v8), 0) + 1, false);

create table message (
    message_id bigint not null default nextval('message_id_seq'),
    account_id varchar(64) not null,
    client_id varchar(64) not null,
    business_id varchar(32) not null,
    auth_id varchar(64) not null,
    message_type integer not null,
    message_body varchar(4096) not null,
    file_id varchar(64) not null,
    file_name varchar(255) not null,
    content_type varchar(128) not null,
    size_bytes bigint not null,
    created_at timestamp with time zone not null,
    primary key (message_id, created_at)
) partition by range (created_at);
alter sequence message_id_seq owned by message.message_id;
-- downloads (file ids carry their time: a look-up reads only the partitions from then on), the operator's listing
-- per account, and an erasure's look-up of one user's messages
create index message_file_idx on message (file_id);
create index message_account_idx on message (account_id, message_id);
create index message_user_idx on message (business_id, auth_id);

create table hook_outbox (
    id uuid primary key,
    message_id bigint not null,
    payload text not null,
    request_id varchar(64),
    traceparent varchar(128),
    stored_at timestamp with time zone not null,
    attempts integer not null default 0,
    next_attempt_at timestamp with time zone not null,
    lease_owner varchar(64),
    lease_until timestamp with time zone,
    last_error varchar(1000)
) with (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 2000,
        autovacuum_vacuum_cost_delay = 0);
create index hook_outbox_due_idx on hook_outbox (next_attempt_at);

create table erasure (
    id uuid primary key,
    business_id varchar(32) not null,
    -- the user's auth_id is personal data, so only its SHA-256 (hex) is kept: enough to answer "was this user erased?"
    auth_id_sha256 varchar(64) not null,
    requested_by varchar(200) not null,
    requested_at timestamp with time zone not null,
    messages integer not null,
    files integer not null,
    outbox_events integer not null,
    -- rows hook-service removed (deliveries, attempts), over its passes; the second pass, two lease times later,
    -- catches an event that was on its way to hook-service during the first
    hook_rows integer not null default 0,
    hook_passes integer not null default 0,
    -- the erased messages' ids by account ({"<account_id>": [message ids]}), for hook-service's passes; cleared once
    -- both are done
    pending_messages text,
    next_pass_at timestamp with time zone,
    completed_at timestamp with time zone,
    last_error varchar(1000)
);
create index erasure_requested_idx on erasure (requested_at);
create index erasure_pending_idx on erasure (next_pass_at) where next_pass_at is not null;

do $$
declare
    first_day date;
    last_day date := (now() at time zone 'UTC')::date + 7;
    d date;
begin
    select (least((select min(created_at) from message_v8), now()) at time zone 'UTC')::date into first_day;
    d := first_day;
    while d <= last_day loop
        execute format('create table %I partition of message for values from (%L) to (%L)',
                'message_p' || to_char(d, 'YYYYMMDD'), d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
        d := d + 1;
    end loop;
end $$;

insert into message (message_id, account_id, client_id, business_id, auth_id, message_type, message_body, file_id,
        file_name, content_type, size_bytes, created_at)
    select message_id, account_id, client_id, business_id, auth_id, message_type, message_body, file_id, file_name,
           content_type, size_bytes, created_at
    from message_v8;

-- a lease of a replica of the former version is not carried over: that event may be posted again, and hook-service
-- takes each (account_id, message_id) once
insert into hook_outbox (id, message_id, payload, request_id, traceparent, stored_at, attempts, next_attempt_at,
        last_error)
    select o.id::uuid, o.message_id, o.payload, o.request_id, o.traceparent, coalesce(o.stored_at, m.created_at),
           o.attempts, case when o.claim_token is null then o.next_attempt_at else least(o.next_attempt_at, now()) end,
           o.last_error
    from hook_outbox_v8 o join message_v8 m on m.message_id = o.message_id
    where o.sent_at is null;

drop table hook_outbox_v8;
drop table message_v8;
