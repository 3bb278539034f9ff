-- On a property's PostgreSQL (the publisher), once its store is at the head schema revision
-- (`paigow db upgrade`), as a superuser or the owner of the store's tables:
--
--   psql -v schema=property_a -f publisher.sql 'host=... dbname=paigow user=postgres'
--
-- The property's store lives in the schema named after it (`property_a`): PostgreSQL 15 applies a
-- replicated row to the table of the SAME schema-qualified name on the archive, so the name the
-- property writes under is the name the archive keeps it under (deploy/archive/README.md).
--
-- Published: what the regulator's audit reads to verify the log, and nothing else.
--   events, event_log   every event and its global position (key rotations are events of the
--                       system stream: `signing_key_rotated`, signed by the key in force)
--   commands            how far each stream was written (a cut tail is found with it)
--   checkpoints         the signed chain heads
--   append_tag_anchors  where tags are required from (key rotations, adoptions)
-- Never: proj_* (projections), api_keys, floor_sessions, append_tags, table_snapshots,
-- sequencer_queue, alembic_version, and no key of any kind (the signing key is a file, never a
-- row).
--
-- Inserts only (publish = 'insert'): an UPDATE, DELETE or TRUNCATE at the property (an insider
-- with the triggers off, or a purge under R18) never reaches the archive, which keeps what was
-- written.

\set ON_ERROR_STOP on

SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'paigow_archive_sender') AS missing \gset
\if :missing
  -- The archive's subscription logs in as this role: replication, and SELECT on the published
  -- tables for the first copy. No other right.
  CREATE ROLE paigow_archive_sender LOGIN REPLICATION;
\endif

GRANT USAGE ON SCHEMA :"schema" TO paigow_archive_sender;
GRANT SELECT ON :"schema".events, :"schema".event_log, :"schema".commands,
  :"schema".checkpoints, :"schema".append_tag_anchors TO paigow_archive_sender;

CREATE PUBLICATION paigow_archive
  FOR TABLE :"schema".events, :"schema".event_log, :"schema".commands,
            :"schema".checkpoints, :"schema".append_tag_anchors
  WITH (publish = 'insert');
