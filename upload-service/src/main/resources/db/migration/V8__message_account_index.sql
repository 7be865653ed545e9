-- The operator API lists an account's messages newest first (GET /admin/v1/messages?account_id=). Without this index
-- that walked the message table back from its newest row until it had found a page of the account's: for an account
-- that uploads little among others that upload much, most of the table. It costs every upload one more index entry;
-- message ids grow, so each lands at the end of its account's entries (one page written per account that uploads, not
-- a random one).
create index message_account_idx on message (account_id, message_id);
