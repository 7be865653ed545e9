create table hook_event (
    id varchar(36) primary key,
    account_id varchar(64) not null,
    message_id bigint not null,
    payload varchar(1048576) not null,
    received_at timestamp with time zone not null,
    constraint hook_event_message_unique unique (account_id, message_id)
);

create table delivery (
    id varchar(36) primary key,
    event_id varchar(36) not null references hook_event (id),
    account_id varchar(64) not null,
    status varchar(16) not null,
    attempts integer not null,
    next_attempt_at timestamp with time zone not null,
    lease_owner varchar(64),
    lease_until timestamp with time zone,
    last_error varchar(1000),
    delivered_at timestamp with time zone,
    created_at timestamp with time zone not null
);
create index delivery_due_idx on delivery (status, next_attempt_at);
create index delivery_account_idx on delivery (account_id, status);

create table delivery_attempt (
    id varchar(36) primary key,
    delivery_id varchar(36) not null references delivery (id),
    attempt integer not null,
    started_at timestamp with time zone not null,
    latency_ms bigint not null,
    status_code integer,
    error varchar(1000)
);
create index delivery_attempt_delivery_idx on delivery_attempt (delivery_id);
