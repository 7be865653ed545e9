-- The signature headers each attempt's request carried (signature, signature-certificate-url), as a JSON object of
-- header name to value, exactly as sent: what the operator console shows per attempt. Not secret: a signature over
-- the body and the public certificate URL. Null for attempts recorded before, and for attempts that sent no request
-- (the account lookup failed, the address was refused): the operator API shows both as an empty object. About 450
-- characters with an RSA-2048 key; the bound is above what a receiver's HTTP server takes in headers (8 KiB), so a
-- value that was sent is never too long to record.
alter table delivery_attempt add column signature_headers varchar(16384);

-- Attempts made before an operator last queued the delivery again (retry, replay): attempt numbers go on from the
-- highest recorded, while the retry schedule starts again after them.
alter table delivery add column schedule_start integer default 0 not null;

-- The operator list and summary filter and order deliveries by created_at (then id, the page cursor). Built here it
-- blocks writes to delivery while it is built; on a large PostgreSQL table create it first with
-- "create index concurrently delivery_created_idx on delivery (created_at, id)" (docs/operations.md), and this skips it.
create index if not exists delivery_created_idx on delivery (created_at, id);
