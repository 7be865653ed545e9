create table account (
    id varchar(36) primary key,
    name varchar(200) not null,
    fqdn varchar(253) not null,
    business_id varchar(32) not null,
    webhook_url varchar(2048) not null,
    created_at timestamp with time zone not null,
    constraint account_fqdn_unique unique (fqdn),
    constraint account_business_unique unique (business_id)
);

create table client (
    id varchar(36) primary key,
    account_id varchar(36) not null references account (id),
    name varchar(200) not null,
    created_at timestamp with time zone not null
);
create index client_account_idx on client (account_id);

create table registered_certificate (
    id varchar(36) primary key,
    account_id varchar(36) not null references account (id),
    pem varchar(65536) not null,
    sha256_fingerprint varchar(64) not null,
    not_after timestamp with time zone not null,
    created_at timestamp with time zone not null,
    revoked_at timestamp with time zone
);
create index registered_certificate_account_idx on registered_certificate (account_id);
