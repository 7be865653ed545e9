-- The sender that has claimed an event it is posting (a random token per batch). With next_attempt_at moved ahead by
-- the claim's lease, another replica's sender skips the event until the lease runs out.
alter table hook_outbox add column claim_token varchar(36);
create index hook_outbox_claim_idx on hook_outbox (claim_token);
