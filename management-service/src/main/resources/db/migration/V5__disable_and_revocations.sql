-- Disabling accounts and clients (operator API) and the revocation list (GET /internal/v1/revocations, README).
-- disabled_at: when it was disabled, null while enabled; a disabled account or client gets no token and its tokens are
-- refused by the services that poll the revocation list. tokens_issued_before: tokens issued (iat) before it are
-- refused until they expire; set at the first disable (the whole second after it), kept when it is enabled again, so
-- that enabling never brings a token from before the disable back.
alter table account add column disabled_at timestamp with time zone;
alter table account add column tokens_issued_before timestamp with time zone;
alter table client add column disabled_at timestamp with time zone;
alter table client add column tokens_issued_before timestamp with time zone;
-- The revocation list reads the rows changed within a token's lifetime.
create index account_tokens_issued_before_idx on account (tokens_issued_before) where tokens_issued_before is not null;
create index client_tokens_issued_before_idx on client (tokens_issued_before) where tokens_issued_before is not null;
create index registered_certificate_revoked_idx on registered_certificate (revoked_at) where revoked_at is not null;
