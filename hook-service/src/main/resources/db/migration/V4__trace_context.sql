-- The W3C trace context (traceparent) each event came with: delivery starts its spans (the wait in the queue, each
-- attempt) under it, so that they belong to the trace of the upload the event came from. Null for events taken in
-- before, or without one.
alter table hook_event add column traceparent varchar(128);
