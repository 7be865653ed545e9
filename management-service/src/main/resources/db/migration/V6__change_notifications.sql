-- Every replica keeps what a signed request reads from these tables in memory (a certificate's revocation, an
-- account's SHA-256 requirement, the disabled accounts and clients) and listens on the channel management_changes
-- (README, Storage): any change to these tables, through any replica or by hand, tells every replica once it is
-- committed (a notification goes out at commit, never for a rollback), and each drops what it holds.
create function notify_management_change() returns trigger language plpgsql as $$
begin
    perform pg_notify('management_changes', tg_table_name);
    return null;
end
$$;
create trigger account_changed after insert or update or delete on account
    for each statement execute function notify_management_change();
create trigger client_changed after insert or update or delete on client
    for each statement execute function notify_management_change();
create trigger registered_certificate_changed after insert or update or delete on registered_certificate
    for each statement execute function notify_management_change();
