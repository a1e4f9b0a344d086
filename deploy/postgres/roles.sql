-- SleepLedger database roles. Idempotent: `sleepledger migrate` applies it on the
-- embedded cluster every time; on an external server run it as a superuser in the
-- SleepLedger database:  psql -d sleepledger -f roles.sql
-- (A role with CREATEROLE can create the roles, but cannot take the advisory lock
-- functions from PUBLIC; the script then says so in a WARNING.)
--
--   sleepledger_owner     LOGIN, no password. Owns the tables and the SECURITY DEFINER
--                         look-ups: after migrations (which run as the connecting user)
--                         this script hands them to it. It may log in because Citus opens
--                         its connections to the worker nodes as a table's owner and
--                         refuses to distribute tables owned by a NOLOGIN role (citus
--                         issue 7719); with no password, only what pg_hba.conf lets in
--                         without one reaches it: local sockets by peer authentication, and
--                         on Citus the nodes' own certificate-authenticated connections
--                         (deploy/postgres/pg_hba-owner.conf). Until issue 21 it was NOLOGIN;
--                         this script makes an older one LOGIN. It never sets a password.
--   sleepledger_app       LOGIN, no password. Reads and writes rows (SELECT, INSERT,
--                         UPDATE, DELETE); cannot change the schema.
--   sleepledger_readonly  LOGIN, no password. SELECT only, and its sessions start
--                         read-only. The missing privileges, not the setting, are what
--                         stop writes (the setting can be changed by the session, and
--                         the role may ALTER ROLE itself). No advisory locks (below).
--   sleepledger_server    LOGIN, no password, no BYPASSRLS. The upload server: reads and
--                         writes rows, but row-level security shows it only the rows of
--                         the user named by the transaction's setting sleepledger.user_id
--                         (SET LOCAL sleepledger.user_id = '42'; none when it is unset). Tokens are found before the user is
--                         known through SECURITY DEFINER functions.
--
-- Row-level security: every table with a user_id column, and users itself (key id), has
-- ROW LEVEL SECURITY enabled and forced (so the owner is held to it too), with one policy
-- per role: sleepledger_server sees and writes only the current user's rows;
-- sleepledger_app (the operator's CLI, the rollup) and sleepledger_owner (migrations,
-- SECURITY DEFINER functions) see everything; sleepledger_readonly reads everything.
-- Superusers (the embedded cluster's own role) bypass it, as PostgreSQL does.
--
-- Give people or services access by granting a role to a login role of their own, or set
-- a password: ALTER ROLE sleepledger_readonly PASSWORD '...';
-- Note: ALTER ROLE ... SET applies when logging in as that role, not through membership.

-- The whole script is one transaction (one simple query). Runs against the same database
-- wait for each other here (advisory lock key "SLROLES"); runs against different databases
-- of one cluster may still collide on the cluster-wide role catalog the very first time,
-- and DatabaseRoles.apply retries those.
SELECT pg_advisory_xact_lock(23446339468412243);

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sleepledger_owner') THEN
        BEGIN
            CREATE ROLE sleepledger_owner LOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    ELSIF NOT (SELECT rolcanlogin FROM pg_roles WHERE rolname = 'sleepledger_owner') THEN
        ALTER ROLE sleepledger_owner LOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sleepledger_app') THEN
        BEGIN
            CREATE ROLE sleepledger_app LOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sleepledger_readonly') THEN
        BEGIN
            CREATE ROLE sleepledger_readonly LOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sleepledger_server') THEN
        BEGIN
            CREATE ROLE sleepledger_server LOGIN NOBYPASSRLS;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    IF NOT EXISTS (
        SELECT FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
        WHERE r.rolname = 'sleepledger_readonly' AND s.setdatabase = 0
          AND 'default_transaction_read_only=on' = ANY (s.setconfig)
    ) THEN
        ALTER ROLE sleepledger_readonly SET default_transaction_read_only = on;
    END IF;
    EXECUTE format(
        'GRANT CONNECT ON DATABASE %I TO sleepledger_app, sleepledger_readonly, sleepledger_server', current_database());
END
$$;

GRANT USAGE, CREATE ON SCHEMA public TO sleepledger_owner;
GRANT USAGE ON SCHEMA public TO sleepledger_app, sleepledger_readonly, sleepledger_server;

-- Tables that exist now belong to sleepledger_owner (migrations run as whoever connects,
-- for the embedded cluster its superuser; this hands their tables over afterwards).
DO $$
DECLARE
    relation record;
BEGIN
    IF pg_has_role(current_user, 'sleepledger_owner', 'MEMBER') THEN
        FOR relation IN
            SELECT c.oid::regclass AS name
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
              AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
        LOOP
            EXECUTE format('ALTER TABLE %s OWNER TO sleepledger_owner', relation.name);
        END LOOP;
        -- Functions too: a SECURITY DEFINER function runs as its owner, who is held to
        -- row-level security like everyone but superusers.
        FOR relation IN
            SELECT p.oid::regprocedure AS name
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' AND p.proname LIKE 'sleepledger\_%'
              AND p.proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
        LOOP
            EXECUTE format('ALTER FUNCTION %s OWNER TO sleepledger_owner', relation.name);
        END LOOP;
    END IF;
END
$$;

-- Tables and sequences that exist now.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO sleepledger_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO sleepledger_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO sleepledger_readonly;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO sleepledger_server;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO sleepledger_server;

-- The schema version table is the migrator's: the application only reads it.
DO $$
BEGIN
    IF to_regclass('public.schema_migrations') IS NOT NULL THEN
        REVOKE INSERT, UPDATE, DELETE ON public.schema_migrations FROM sleepledger_app, sleepledger_server;
    END IF;
END
$$;

-- Password hashes are for signing in only: support staff (the read-only role) have no
-- use for them, and the server reads them through sleepledger_password_credentials.
DO $$
BEGIN
    IF to_regclass('public.user_passwords') IS NOT NULL THEN
        REVOKE ALL ON public.user_passwords FROM sleepledger_readonly;
    END IF;
END
$$;

-- Tables and sequences that later migrations create, as sleepledger_owner or as the
-- user running this script, are usable before this script runs again.
ALTER DEFAULT PRIVILEGES FOR ROLE sleepledger_owner IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO sleepledger_app;
ALTER DEFAULT PRIVILEGES FOR ROLE sleepledger_owner IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO sleepledger_app;
ALTER DEFAULT PRIVILEGES FOR ROLE sleepledger_owner IN SCHEMA public
    GRANT SELECT ON TABLES TO sleepledger_readonly;
ALTER DEFAULT PRIVILEGES FOR ROLE sleepledger_owner IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO sleepledger_server;
ALTER DEFAULT PRIVILEGES FOR ROLE sleepledger_owner IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO sleepledger_server;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO sleepledger_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO sleepledger_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT ON TABLES TO sleepledger_readonly;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO sleepledger_server;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO sleepledger_server;

-- The server may call the look-ups it needs before it knows the user, and the check of a
-- token as its owner (sleepledger_own_token, migration 0020: not a definer function, so
-- row-level security holds it to the user its transaction names), and nothing else.
DO $$
DECLARE
    function record;
BEGIN
    FOR function IN
        SELECT p.oid::regprocedure AS name
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proname LIKE 'sleepledger\_%'
          AND (p.prosecdef OR p.proname = 'sleepledger_own_token')
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO sleepledger_server', function.name);
    END LOOP;
END
$$;

-- Advisory locks are the writers' alone in this database. PostgreSQL grants EXECUTE on
-- the pg_advisory*_lock functions to PUBLIC, so any role could hold the keys the writers
-- wait for: the migrator's and this script's (and, until migration 0019 made the import
-- queue's claims leases, the claim of job N waited for key (1397508674, N)).
-- Here PUBLIC (and so sleepledger_readonly, and the login roles of its members) loses
-- them, and the writing roles and the database owner (who migrates on an external
-- server) keep them; superusers always may. Releasing (pg_advisory_unlock*) stays open.
-- The functions belong to the bootstrap superuser: when something is to change and this
-- runs as anyone else, it warns and changes nothing. Only what is missing is changed.
DO $$
DECLARE
    functions regprocedure[];
    function regprocedure;
    holders text[];
    holder text;
BEGIN
    SELECT array_agg(p.oid::regprocedure ORDER BY p.oid) INTO functions
    FROM pg_proc p
    WHERE p.pronamespace = 'pg_catalog'::regnamespace
      AND p.proname IN (
          'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared',
          'pg_try_advisory_lock', 'pg_try_advisory_lock_shared', 'pg_try_advisory_xact_lock',
          'pg_try_advisory_xact_lock_shared');
    SELECT ARRAY['sleepledger_owner', 'sleepledger_app', 'sleepledger_server', pg_get_userbyid(datdba)]
    INTO holders FROM pg_database WHERE datname = current_database();
    IF NOT EXISTS (
        SELECT FROM unnest(functions) f
        WHERE has_function_privilege('sleepledger_readonly', f, 'EXECUTE')
           OR EXISTS (SELECT FROM unnest(holders) h WHERE NOT has_function_privilege(h, f, 'EXECUTE'))
    ) THEN
        RETURN;
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE WARNING 'roles.sql: only a superuser can take the advisory lock functions from sleepledger_readonly, which may hold up the import queue until then; run this script again as a superuser';
        RETURN;
    END IF;
    FOREACH function IN ARRAY functions LOOP
        IF has_function_privilege('sleepledger_readonly', function, 'EXECUTE') THEN
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC, sleepledger_readonly', function);
        END IF;
        FOREACH holder IN ARRAY holders LOOP
            IF NOT has_function_privilege(holder, function, 'EXECUTE') THEN
                EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', function, holder);
            END IF;
        END LOOP;
    END LOOP;
END
$$;

-- Row-level security on every user-data table (see the top of this file). Only what is
-- missing or different is changed: ALTER TABLE, CREATE POLICY and ALTER POLICY take strong
-- locks, and this script runs on every start of a writing tool on the embedded default.
--
-- The server's policy compares the key with the setting directly, with no sub-select
-- (Citus refuses policies with sub-queries on distributed tables). It is still an index
-- condition: current_setting is STABLE, so an index scan evaluates it once, at its start,
-- and the user_id indexes serve it. A policy written by an older roles.sql (with
-- `(SELECT nullif(...)::bigint)`) or otherwise different is changed in place (ALTER
-- POLICY), so a database made before upgrades on the next run. The expressions are
-- compared as PostgreSQL 15 prints them back (pg_policies.qual and with_check).
DO $$
DECLARE
    relation record;
    current_user_id constant text := 'nullif(current_setting(''sleepledger.user_id'', true), '''')::bigint';
    printed text;
    existing record;
BEGIN
    FOR relation IN
        SELECT c.oid::regclass AS name, c.relname, c.relrowsecurity, c.relforcerowsecurity,
               CASE WHEN c.relname = 'users' THEN 'id' ELSE 'user_id' END AS key
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
          AND (c.relname = 'users' OR EXISTS (
              SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped))
    LOOP
        IF NOT relation.relrowsecurity THEN
            EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', relation.name);
        END IF;
        IF NOT relation.relforcerowsecurity THEN
            EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', relation.name);
        END IF;
        printed := format(
            '(%I = (NULLIF(current_setting(''sleepledger.user_id''::text, true), ''''::text))::bigint)', relation.key);
        SELECT qual, with_check, roles INTO existing
        FROM pg_policies
        WHERE schemaname = 'public' AND tablename = relation.relname AND policyname = 'sleepledger_server_own_rows';
        IF NOT FOUND THEN
            EXECUTE format(
                'CREATE POLICY sleepledger_server_own_rows ON %s TO sleepledger_server USING (%I = %s) WITH CHECK (%I = %s)',
                relation.name, relation.key, current_user_id, relation.key, current_user_id);
        ELSIF existing.qual IS DISTINCT FROM printed OR existing.with_check IS DISTINCT FROM printed
            OR existing.roles IS DISTINCT FROM ARRAY['sleepledger_server']::name[]
        THEN
            EXECUTE format(
                'ALTER POLICY sleepledger_server_own_rows ON %s TO sleepledger_server USING (%I = %s) WITH CHECK (%I = %s)',
                relation.name, relation.key, current_user_id, relation.key, current_user_id);
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_policies
            WHERE schemaname = 'public' AND tablename = relation.relname AND policyname = 'sleepledger_all_rows'
        ) THEN
            EXECUTE format(
                'CREATE POLICY sleepledger_all_rows ON %s TO sleepledger_app, sleepledger_owner USING (true) WITH CHECK (true)',
                relation.name);
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_policies
            WHERE schemaname = 'public' AND tablename = relation.relname AND policyname = 'sleepledger_readonly_all_rows'
        ) THEN
            EXECUTE format(
                'CREATE POLICY sleepledger_readonly_all_rows ON %s FOR SELECT TO sleepledger_readonly USING (true)',
                relation.name);
        END IF;
    END LOOP;
END
$$;
