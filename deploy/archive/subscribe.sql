-- On the archive, one property's subscription (PostgreSQL 15: a superuser creates it), once its
-- schema exists (archive_property.sql) and the property publishes (publisher.sql):
--
--   psql -v schema=property_a -v conninfo='host=10.0.0.5 port=5432 dbname=paigow
--        user=paigow_archive_sender sslmode=verify-full' -f subscribe.sql 'dbname=archive ...'
--
-- Named after the property's schema: `paigow audit follow --archive` reads its state in
-- pg_stat_subscription (the `stale` finding). Its slot on the publisher has the same name.
--   copy_data  the rows the property holds already, then every insert as it commits
-- A change the archive refuses (a replicated UPDATE hitting the triggers, another row under a key
-- the archive holds) fails the apply worker, which retries it for ever, one error each time; the
-- follower reports the property `stale`. A lost connection (the publisher restarted, failed over)
-- is retried the same way and heals by itself. (disable_on_error = true would also stop the
-- subscription at a lost connection, until someone enables it again.)

\set ON_ERROR_STOP on

CREATE SUBSCRIPTION :"schema"
  CONNECTION :'conninfo'
  PUBLICATION paigow_archive
  WITH (copy_data = true);
