-- On the archive's PostgreSQL, once, in the archive database, as a superuser:
--
--   psql -f archive.sql 'host=... dbname=archive user=postgres'
--
-- The follower's role (read only) and the two trigger functions every property's schema uses.

\set ON_ERROR_STOP on

SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'paigow_archive_follower') AS missing \gset
\if :missing
  -- `paigow audit follow --archive` logs in as this role: SELECT on the archived tables
  -- (archive_property.sql grants it), nothing else; every transaction it opens is read only.
  CREATE ROLE paigow_archive_follower LOGIN;
\endif
ALTER ROLE paigow_archive_follower SET default_transaction_read_only = on;

-- No row of the archive is ever changed or removed: not by a local session, not by a replicated
-- change (the triggers are ENABLE ALWAYS, so they fire in the subscription's apply worker too,
-- whose session_replication_role is `replica`). Only the tables' owner or a superuser can switch
-- them off (ALTER TABLE ... DISABLE TRIGGER): what the audit is there to catch.
CREATE OR REPLACE FUNCTION public.paigow_archive_refuse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'paigow archive: % on %.% refused: the archive is append-only',
        TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME;
END
$$;

-- A row sent again is taken once: an INSERT of a row the archive already holds, identical column
-- for column, is skipped; one that differs from the row held under the same key is refused
-- (the subscription's worker fails and retries: the follower says `stale`). So a property
-- can send its log again from the start (a subscription re-created with copy_data after its
-- publisher failed over: README.md, "Failover") without the archive taking anything twice or
-- letting anything it holds be replaced. TG_ARGV[0]: the table's key column. The archive's own
-- column (checkpoints.archived_at) is no part of the row compared.
CREATE OR REPLACE FUNCTION public.paigow_archive_once() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    held jsonb;
BEGIN
    EXECUTE format('SELECT to_jsonb(t) FROM %I.%I t WHERE t.%I = ($1).%I',
                   TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[0])
        INTO held USING NEW;
    IF held IS NULL THEN
        RETURN NEW;
    END IF;
    IF held - 'archived_at' = to_jsonb(NEW) - 'archived_at' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'paigow archive: %.% already holds another row with % = %: refused',
        TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_ARGV[0], held ->> TG_ARGV[0];
END
$$;

-- A wake-up for `paigow audit follow` (LISTEN paigow_checkpoint; the payload names the property's
-- schema), as migration 0010 does at the property. Row level: the apply worker fires no
-- statement-level trigger for a replicated INSERT. One notification per transaction and schema
-- (PostgreSQL folds equal notifications of one transaction).
CREATE OR REPLACE FUNCTION public.paigow_archive_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('paigow_checkpoint', TG_TABLE_SCHEMA);
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION public.paigow_archive_refuse() FROM PUBLIC;
REVOKE ALL ON FUNCTION public.paigow_archive_notify() FROM PUBLIC;
REVOKE ALL ON FUNCTION public.paigow_archive_once() FROM PUBLIC;
