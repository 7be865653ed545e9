-- The delivery queue built for PostgreSQL (issue 38; README, Storage). Before, one table held every delivery ever
-- made, hot and finished alike, and each claim walked its pending rows by a plan that depended on the planner's
-- statistics: with 127,000 pending and the statistics stale, a claim took over 2.5 s. Now:
--
-- * delivery_queue holds only what is not finished (pending, in flight, or held for a disabled endpoint), with the
--   event it carries. Claims read it by delivery_queue_due_idx, a partial index on the due time of the rows that may
--   be sent (held rows are outside it), in due order, FOR UPDATE SKIP LOCKED, with every other plan switched off for
--   the claim (service-support's LeaseQueue): a claim costs the same with 100 rows pending or 1,000,000. A lease sets
--   lease_owner and lease_until, which no index holds, so with room left on the page (fillfactor 70) it is a HOT
--   update. Delivered and dead rows leave it.
-- * delivery_history (finished deliveries, with their event) and delivery_attempt (every attempt) are append-only,
--   partitioned by day (UTC) and dropped a whole day at a time once older than hook.retention.period; dead_letter
--   names the dead deliveries an operator may still replay.
--
-- Ids are uuid (16 bytes, not a 36-character string). The rows of the former tables are moved over: pending ones into
-- the queue, due at once (a lease held by a replica of the former version is not carried over: such a delivery may be
-- sent again, under the same delivery id); finished ones, and every attempt, into the history.

alter table delivery_attempt rename to delivery_attempt_v5;
alter index delivery_attempt_delivery_idx rename to delivery_attempt_v5_delivery_idx;

create table delivery_queue (
    id uuid primary key,
    event_id uuid not null,
    account_id varchar(64) not null,
    message_id bigint not null,
    -- the event as accepted: the JSON body each attempt signs and sends, with its own signature_timestamp added last
    payload text not null,
    request_id varchar(64),
    traceparent varchar(128),
    received_at timestamp with time zone not null,
    -- the number of the last attempt made (numbers go on over an operator's retry), and its value when an operator
    -- last queued the delivery again: the retry schedule counts from there
    attempts integer not null default 0,
    schedule_start integer not null default 0,
    next_attempt_at timestamp with time zone not null,
    -- held for a disabled endpoint: never claimed until the endpoint is enabled
    held boolean not null default false,
    lease_owner varchar(64),
    lease_until timestamp with time zone,
    last_error varchar(1000)
) with (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 2000,
        autovacuum_vacuum_cost_delay = 0);
-- intake's duplicate check while the delivery is unfinished; an account's rows (disable, enable, held count)
create unique index delivery_queue_message_idx on delivery_queue (account_id, message_id);
create index delivery_queue_due_idx on delivery_queue (next_attempt_at) where not held;

create table delivery_history (
    id uuid not null,
    event_id uuid not null,
    account_id varchar(64) not null,
    message_id bigint not null,
    status varchar(16) not null,
    attempts integer not null,
    payload text not null,
    request_id varchar(64),
    traceparent varchar(128),
    received_at timestamp with time zone not null,
    finished_at timestamp with time zone not null,
    last_error varchar(1000)
) partition by range (finished_at);
-- intake's duplicate check, the operator's look-up of a message's delivery and an account's deliveries (newest
-- message first); a delivery by its id. One index only starts with account_id: with two, which one a look-up by
-- (account_id, message_id) takes would depend on the statistics, and the other reads every row of the account.
create index delivery_history_message_idx on delivery_history (account_id, message_id);
create index delivery_history_id_idx on delivery_history (id);

create table delivery_attempt (
    id uuid not null,
    delivery_id uuid not null,
    attempt integer not null,
    started_at timestamp with time zone not null,
    latency_ms bigint not null,
    status_code integer,
    error varchar(1000),
    signature_headers varchar(16384)
) partition by range (started_at);
create index delivery_attempt_delivery_idx on delivery_attempt (delivery_id);

-- Dead deliveries not replayed yet (their history row says why): what an operator's replay takes back into the queue.
create table dead_letter (
    delivery_id uuid primary key,
    account_id varchar(64) not null,
    finished_at timestamp with time zone not null
);
create index dead_letter_account_idx on dead_letter (account_id);
create index dead_letter_finished_idx on dead_letter (finished_at);

-- Deliveries finished and attempts failed per hour, written with each batch of outcomes: the operator's summary and
-- chart read these rows, never the history (a day of history at 1,000 hooks a second is 86 million rows).
create table delivery_stats (
    hour timestamp with time zone primary key,
    delivered bigint not null default 0,
    dead bigint not null default 0,
    failed_attempts bigint not null default 0
);

-- Day partitions (UTC) from the oldest row to be moved over up to a week ahead; the service makes the later ones.
do $$
declare
    first_day date;
    last_day date := (now() at time zone 'UTC')::date + 7;
    t text;
    d date;
begin
    select (least(
            (select min(coalesce(delivered_at, next_attempt_at, created_at)) from delivery where status <> 'PENDING'),
            (select min(started_at) from delivery_attempt_v5),
            now()) at time zone 'UTC')::date
        into first_day;
    foreach t in array array['delivery_history', 'delivery_attempt'] loop
        d := first_day;
        while d <= last_day loop
            execute format('create table %I partition of %I for values from (%L) to (%L)',
                    t || '_p' || to_char(d, 'YYYYMMDD'), t, d::text || ' 00:00:00+00',
                    (d + 1)::text || ' 00:00:00+00');
            d := d + 1;
        end loop;
    end loop;
end $$;

insert into delivery_queue (id, event_id, account_id, message_id, payload, request_id, traceparent, received_at,
        attempts, schedule_start, next_attempt_at, held, last_error)
    select d.id::uuid, e.id::uuid, d.account_id, e.message_id, e.payload, e.request_id, e.traceparent,
           e.received_at, d.attempts, d.schedule_start,
           case when d.lease_until is null then d.next_attempt_at else least(d.next_attempt_at, now()) end,
           exists (select 1 from endpoint_state s where s.account_id = d.account_id and s.disabled_at is not null),
           d.last_error
    from delivery d join hook_event e on e.id = d.event_id
    where d.status = 'PENDING';

insert into delivery_history (id, event_id, account_id, message_id, status, attempts, payload, request_id,
        traceparent, received_at, finished_at, last_error)
    select d.id::uuid, e.id::uuid, d.account_id, e.message_id, d.status, d.attempts, e.payload, e.request_id,
           e.traceparent, e.received_at, coalesce(d.delivered_at, d.next_attempt_at, d.created_at), d.last_error
    from delivery d join hook_event e on e.id = d.event_id
    where d.status <> 'PENDING';

insert into dead_letter (delivery_id, account_id, finished_at)
    select d.id::uuid, d.account_id, coalesce(d.next_attempt_at, d.created_at)
    from delivery d where d.status = 'DEAD';

insert into delivery_attempt (id, delivery_id, attempt, started_at, latency_ms, status_code, error,
        signature_headers)
    select a.id::uuid, a.delivery_id::uuid, a.attempt, a.started_at, a.latency_ms, a.status_code, a.error,
           a.signature_headers
    from delivery_attempt_v5 a;

insert into delivery_stats (hour, delivered, dead)
    select date_trunc('hour', h.finished_at, 'UTC'), count(*) filter (where h.status = 'DELIVERED'),
           count(*) filter (where h.status = 'DEAD')
    from delivery_history h group by 1;
insert into delivery_stats (hour, failed_attempts)
    select date_trunc('hour', a.started_at, 'UTC'), count(*) from delivery_attempt a
    where a.status_code is null or a.status_code < 200 or a.status_code > 299 group by 1
    on conflict (hour) do update set failed_attempts = excluded.failed_attempts;

drop table delivery_attempt_v5;
drop table delivery;
drop table hook_event;
