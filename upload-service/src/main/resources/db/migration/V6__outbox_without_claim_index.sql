-- No query looks rows up by claim_token (a claim updates each row by its id), so its index only cost time: every
-- upload inserts an outbox row and deletes it once hook-service has taken it, and each index is one more tree to
-- change both times.
drop index hook_outbox_claim_idx;
