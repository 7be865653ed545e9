-- Accounts whose signed requests must carry a valid Signature-256 (SHA256withRSA / SHA256withECDSA, the extension of
-- spec 5.1); false keeps the specification's Signature (SHA-1) enough. Set by the operator API.
alter table account add column require_sha256 boolean default false not null;
