-- The record of the operator actions of this service (service-support's OperatorAudit): one row per state-changing
-- call made with the operator key, or with the internal key on an operator's behalf. Written before the action runs
-- (status and outcome empty), completed once when the answer is sent (status, outcome, and what the answer names,
-- such as the id of what a POST created: the target, or added after the path's target, which stays as it was).
-- Append-only: no retention job touches it, and the trigger below refuses DELETE, TRUNCATE and any UPDATE but that
-- one completion. Its lifetime is the service's;
-- docs/operations.md ("Operator audit trail") says how an administrator archives it.
-- A repeatable migration shared by the services (flyway location db/audit): written so that it can run again.
CREATE TABLE IF NOT EXISTS operator_action (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL,
    credential  text        NOT NULL,
    operator    text,
    method      text        NOT NULL,
    path        text        NOT NULL,
    action      text        NOT NULL,
    target      text,
    request_id  text,
    source      text,
    finished_at timestamptz,
    status      integer,
    outcome     text
);

CREATE INDEX IF NOT EXISTS operator_action_operator ON operator_action (operator, id);

CREATE OR REPLACE FUNCTION operator_action_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status IS NULL AND NEW.status IS NOT NULL
            AND (OLD.target IS NULL OR NEW.target IS NOT DISTINCT FROM OLD.target
                 OR starts_with(NEW.target, OLD.target || ', '))
            AND (NEW.id, NEW.at, NEW.credential, NEW.operator, NEW.method, NEW.path, NEW.action, NEW.request_id,
                 NEW.source)
                IS NOT DISTINCT FROM (OLD.id, OLD.at, OLD.credential, OLD.operator, OLD.method, OLD.path, OLD.action,
                 OLD.request_id, OLD.source) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'operator_action is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

DROP TRIGGER IF EXISTS operator_action_append_only ON operator_action;
CREATE TRIGGER operator_action_append_only BEFORE UPDATE OR DELETE ON operator_action
    FOR EACH ROW EXECUTE FUNCTION operator_action_append_only();
DROP TRIGGER IF EXISTS operator_action_no_truncate ON operator_action;
CREATE TRIGGER operator_action_no_truncate BEFORE TRUNCATE ON operator_action
    FOR EACH STATEMENT EXECUTE FUNCTION operator_action_append_only();
