-- Per-account upload quotas (README, Quotas): what each account has uploaded on a UTC day (the declared lengths of
-- its accepted uploads) and how many uploads it started in the current minute. One row per account and day, written
-- by one statement before each body is read, on every replica alike. Kept for the retention period (UploadRetention
-- deletes older days), so an operator can see an account's recent days.
CREATE TABLE upload_usage (
    account_id     VARCHAR(64) NOT NULL,
    day            DATE        NOT NULL,
    bytes          BIGINT      NOT NULL,
    uploads        BIGINT      NOT NULL,
    minute         TIMESTAMPTZ NOT NULL,
    minute_uploads INTEGER     NOT NULL,
    PRIMARY KEY (account_id, day)
) WITH (fillfactor = 70);
