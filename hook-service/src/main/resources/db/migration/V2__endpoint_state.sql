-- One row per account endpoint that has ever failed or been disabled. A disabled endpoint's deliveries stay PENDING
-- (held, never dropped) until an operator enables it again.
create table endpoint_state (
    account_id varchar(64) primary key,
    consecutive_failures integer not null,
    failing_since timestamp with time zone,
    last_failure_at timestamp with time zone,
    disabled_at timestamp with time zone,
    disabled_by varchar(16),
    disabled_reason varchar(500)
);
