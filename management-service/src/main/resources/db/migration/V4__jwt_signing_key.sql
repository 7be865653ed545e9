-- When the platform first signed with each JWT signing key (by its JWKS key id): an EC key carries no date of its own,
-- and its age is what the rotation policy (90 days) and the alert ManagementJwtKeyOld go by. Written once per key, by
-- the first replica that loads it; restarts and other replicas keep the first date.
create table jwt_signing_key (
    kid varchar(64) primary key,
    first_used_at timestamp with time zone not null
);
