-- On the archive, one property's schema: the published tables, the same names and columns as the
-- property's (adapters/store/schema.py), as a superuser:
--
--   psql -v schema=property_a -f archive_property.sql 'host=... dbname=archive user=postgres'
--
-- The ids come with the rows (the property's sequences gave them; PostgreSQL 15 replicates no
-- sequence): the archive's tables have no defaults and no sequences, and nothing but the
-- subscription writes them.

\set ON_ERROR_STOP on

CREATE SCHEMA :"schema";

CREATE TABLE :"schema".events (
    id bigint PRIMARY KEY,
    stream_id varchar(200) NOT NULL,
    version integer NOT NULL,
    type varchar(200) NOT NULL,
    schema_version integer NOT NULL,
    payload text NOT NULL,
    recorded_at varchar(32) NOT NULL,
    actor_id varchar(200) NOT NULL,
    actor_role varchar(100) NOT NULL,
    command_id varchar(200) NOT NULL,
    prev_hash varchar(64) NOT NULL,
    hash varchar(64) NOT NULL,
    CONSTRAINT uq_events_stream_version UNIQUE (stream_id, version)
);

-- The foreign key holds for local sessions; the subscription's workers (replica role) do not
-- check it, so the first copy may fill event_log before events.
CREATE TABLE :"schema".event_log (
    position bigint PRIMARY KEY,
    event_id bigint NOT NULL CONSTRAINT fk_event_log_event REFERENCES :"schema".events (id),
    prev_hash varchar(64) NOT NULL,
    hash varchar(64) NOT NULL,
    CONSTRAINT uq_event_log_event UNIQUE (event_id)
);

CREATE TABLE :"schema".commands (
    command_id varchar(200) PRIMARY KEY,
    stream_id varchar(200) NOT NULL,
    first_version integer NOT NULL,
    last_version integer NOT NULL
);

CREATE TABLE :"schema".checkpoints (
    id bigint PRIMARY KEY,
    position bigint NOT NULL,
    hash varchar(64) NOT NULL,
    signed_at varchar(32) NOT NULL,
    key_id varchar(16) NOT NULL,
    signature varchar(128) NOT NULL,
    -- The archive's own column (the publisher sends none: the default fills it): when the
    -- checkpoint, so its whole transaction, reached the archive. Signed by nobody; for the
    -- replication lag (benchmarks/bench_archive.py) and the operators.
    archived_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE :"schema".append_tag_anchors (
    id bigint PRIMARY KEY,
    position bigint NOT NULL,
    hash varchar(64) NOT NULL,
    tag varchar(64)
);

CREATE TRIGGER archive_refuse_change BEFORE UPDATE OR DELETE ON :"schema".events
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_change BEFORE UPDATE OR DELETE ON :"schema".event_log
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_change BEFORE UPDATE OR DELETE ON :"schema".commands
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_change BEFORE UPDATE OR DELETE ON :"schema".checkpoints
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_change BEFORE UPDATE OR DELETE ON :"schema".append_tag_anchors
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_truncate BEFORE TRUNCATE ON :"schema".events
    FOR EACH STATEMENT EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_truncate BEFORE TRUNCATE ON :"schema".event_log
    FOR EACH STATEMENT EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_truncate BEFORE TRUNCATE ON :"schema".commands
    FOR EACH STATEMENT EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_truncate BEFORE TRUNCATE ON :"schema".checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_refuse_truncate BEFORE TRUNCATE ON :"schema".append_tag_anchors
    FOR EACH STATEMENT EXECUTE FUNCTION public.paigow_archive_refuse();
CREATE TRIGGER archive_once BEFORE INSERT ON :"schema".events
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_once('id');
CREATE TRIGGER archive_once BEFORE INSERT ON :"schema".event_log
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_once('position');
CREATE TRIGGER archive_once BEFORE INSERT ON :"schema".commands
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_once('command_id');
CREATE TRIGGER archive_once BEFORE INSERT ON :"schema".checkpoints
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_once('id');
CREATE TRIGGER archive_once BEFORE INSERT ON :"schema".append_tag_anchors
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_once('id');
CREATE TRIGGER archive_notify AFTER INSERT ON :"schema".checkpoints
    FOR EACH ROW EXECUTE FUNCTION public.paigow_archive_notify();

-- Fire in the apply worker too (an ordinary trigger does not: it runs as `replica`).
ALTER TABLE :"schema".events ENABLE ALWAYS TRIGGER archive_refuse_change;
ALTER TABLE :"schema".event_log ENABLE ALWAYS TRIGGER archive_refuse_change;
ALTER TABLE :"schema".commands ENABLE ALWAYS TRIGGER archive_refuse_change;
ALTER TABLE :"schema".checkpoints ENABLE ALWAYS TRIGGER archive_refuse_change;
ALTER TABLE :"schema".append_tag_anchors ENABLE ALWAYS TRIGGER archive_refuse_change;
ALTER TABLE :"schema".events ENABLE ALWAYS TRIGGER archive_refuse_truncate;
ALTER TABLE :"schema".event_log ENABLE ALWAYS TRIGGER archive_refuse_truncate;
ALTER TABLE :"schema".commands ENABLE ALWAYS TRIGGER archive_refuse_truncate;
ALTER TABLE :"schema".checkpoints ENABLE ALWAYS TRIGGER archive_refuse_truncate;
ALTER TABLE :"schema".append_tag_anchors ENABLE ALWAYS TRIGGER archive_refuse_truncate;
ALTER TABLE :"schema".events ENABLE ALWAYS TRIGGER archive_once;
ALTER TABLE :"schema".event_log ENABLE ALWAYS TRIGGER archive_once;
ALTER TABLE :"schema".commands ENABLE ALWAYS TRIGGER archive_once;
ALTER TABLE :"schema".checkpoints ENABLE ALWAYS TRIGGER archive_once;
ALTER TABLE :"schema".append_tag_anchors ENABLE ALWAYS TRIGGER archive_once;
ALTER TABLE :"schema".checkpoints ENABLE ALWAYS TRIGGER archive_notify;

-- The follower reads; it writes nothing, owns nothing, and cannot switch a trigger off.
GRANT USAGE ON SCHEMA :"schema" TO paigow_archive_follower;
GRANT SELECT ON :"schema".events, :"schema".event_log, :"schema".commands,
  :"schema".checkpoints, :"schema".append_tag_anchors TO paigow_archive_follower;
