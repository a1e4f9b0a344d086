import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// The placement of the tables on a Citus cluster, as `deploy/citus/tables.conf` declares
/// it: the reference and coordinator-local tables; every other table is a person's data,
/// distributed by `user_id`.
struct CitusTables {
    /// Tables copied to every node.
    var reference: [String]
    /// Tables with one placement, on the coordinator.
    var local: [String]

    /// The repository's declaration.
    static func declared() throws -> CitusTables {
        try parse(String(contentsOfFile: TestDatabase.repositoryRoot + "/deploy/citus/tables.conf", encoding: .utf8))
    }

    /// The declaration in `text`: lines `reference NAME` and `local NAME`, comments after `#`.
    static func parse(_ text: String) throws -> CitusTables {
        var tables = CitusTables(reference: [], local: [])
        for line in text.split(separator: "\n") {
            let words = line.prefix { $0 != "#" }.split(separator: " ")
            guard !words.isEmpty else { continue }
            switch (words.first, words.count) {
            case ("reference", 2): tables.reference.append(String(words[1]))
            case ("local", 2): tables.local.append(String(words[1]))
            default: throw ParseError(line: String(line))
            }
        }
        return tables
    }

    struct ParseError: Error { var line: String }

    /// `names` as a PostgreSQL array literal.
    static func array(_ names: [String]) -> SQLValue { .text("{" + names.joined(separator: ",") + "}") }
}

/// One rule a schema must follow for Citus to distribute it by user, as a query of
/// PostgreSQL's catalog that lists what breaks it (`$1` the reference tables, `$2` the local
/// ones, as arrays).
struct CitusRule: Sendable, CustomTestStringConvertible {
    var name: String
    var offendersSQL: String
    var testDescription: String { name }

    /// The person's-data tables (`per_user`) and the reference tables (`reference`), for the
    /// rules' queries.
    static let tables = """
        WITH per_user AS (
            SELECT c.oid, c.relname FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND NOT (c.relname = ANY ($1::text[] || $2::text[]))
        ), reference AS (
            SELECT c.oid, c.relname FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY ($1::text[])
        ), user_key AS (
            SELECT a.attrelid, a.attnum FROM pg_attribute a WHERE a.attname = 'user_id' AND NOT a.attisdropped
        )
        """

    static let all: [CitusRule] = [
        CitusRule(
            name: "every table is a person's data (with user_id) or declared in tables.conf",
            offendersSQL: """
                \(tables)
                SELECT p.relname FROM per_user p WHERE NOT EXISTS (SELECT FROM user_key k WHERE k.attrelid = p.oid)
                UNION ALL
                SELECT t FROM unnest($1::text[] || $2::text[]) t WHERE to_regclass('public.' || quote_ident(t)) IS NULL
                """),
        CitusRule(
            name: "every primary key, unique and exclusion constraint of a person's data includes user_id",
            offendersSQL: """
                \(tables)
                SELECT p.relname || '.' || i.relname FROM per_user p
                JOIN pg_index x ON x.indrelid = p.oid JOIN pg_class i ON i.oid = x.indexrelid
                JOIN user_key k ON k.attrelid = p.oid
                WHERE (x.indisunique OR x.indisexclusion) AND NOT (k.attnum = ANY (x.indkey::int2[]))
                UNION ALL
                SELECT p.relname FROM per_user p
                WHERE NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conrelid = p.oid AND c.contype = 'p')
                """),
        CitusRule(
            name: "a foreign key between people's data pairs user_id with user_id",
            offendersSQL: """
                \(tables)
                SELECT f.conname FROM pg_constraint f
                JOIN per_user s ON s.oid = f.conrelid JOIN per_user t ON t.oid = f.confrelid
                WHERE f.contype = 'f' AND NOT EXISTS (
                    SELECT FROM unnest(f.conkey, f.confkey) AS pair (source, target)
                    JOIN user_key ks ON ks.attrelid = f.conrelid AND ks.attnum = pair.source
                    JOIN user_key kt ON kt.attrelid = f.confrelid AND kt.attnum = pair.target)
                """),
        CitusRule(
            name:
                "a person's data refers only to people's data and reference tables, a reference table only to reference tables",
            offendersSQL: """
                \(tables)
                SELECT f.conname FROM pg_constraint f
                WHERE f.contype = 'f' AND f.connamespace = 'public'::regnamespace AND (
                    (f.conrelid IN (SELECT oid FROM per_user)
                        AND f.confrelid NOT IN (SELECT oid FROM per_user UNION ALL SELECT oid FROM reference))
                    OR (f.conrelid IN (SELECT oid FROM reference) AND f.confrelid NOT IN (SELECT oid FROM reference)))
                """),
        CitusRule(
            name: "no policy expression contains a sub-query",
            offendersSQL: """
                \(tables)
                SELECT p.polname || ' on ' || c.relname FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
                WHERE c.relnamespace = 'public'::regnamespace
                  AND (p.polqual::text LIKE '%{SUBLINK %' OR p.polwithcheck::text LIKE '%{SUBLINK %')
                """),
        CitusRule(
            name: "a person's data takes numbers only from bigint identity columns",
            offendersSQL: """
                \(tables)
                SELECT p.relname || '.' || a.attname FROM per_user p
                JOIN pg_attribute a ON a.attrelid = p.oid AND a.attnum > 0 AND NOT a.attisdropped
                LEFT JOIN pg_attrdef d ON d.adrelid = p.oid AND d.adnum = a.attnum
                WHERE (a.attidentity <> '' AND a.atttypid <> 'bigint'::regtype)
                   OR pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%'
                """),
        CitusRule(
            name: "no trigger on a person's data or a reference table",
            offendersSQL: """
                \(tables)
                SELECT t.tgname || ' on ' || c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                WHERE NOT t.tgisinternal
                  AND t.tgrelid IN (SELECT oid FROM per_user UNION ALL SELECT oid FROM reference)
                """),
        CitusRule(
            name: "a view of people's data runs as its caller (security_invoker), under row-level security",
            offendersSQL: """
                \(tables)
                SELECT DISTINCT v.relname FROM pg_class v
                JOIN pg_rewrite r ON r.ev_class = v.oid
                JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
                    AND d.refclassid = 'pg_class'::regclass
                WHERE v.relkind IN ('v', 'm') AND v.relnamespace = 'public'::regnamespace AND d.refobjid <> v.oid
                  AND d.refobjid IN (SELECT oid FROM per_user UNION ALL SELECT oid FROM reference)
                  AND NOT coalesce(v.reloptions && ARRAY['security_invoker=true', 'security_invoker=on'], false)
                """),
    ]

    /// What breaks the rule in the database of `connection`.
    func offenders(_ connection: Connection, _ tables: CitusTables) throws -> [String] {
        try connection.execute(
            offendersSQL, [CitusTables.array(tables.reference), CitusTables.array(tables.local)]
        ).rows.compactMap { try $0.string(0) }.sorted()
    }
}

/// The schema could be distributed by user on Citus (issue 21), proven from PostgreSQL's
/// own catalog since Citus cannot be installed here: every rule holds on the migrated
/// schema, each rule catches a migration written to break it, and the distribution script
/// prints what the catalog and the declaration say.
@Suite("Ready for Citus: catalog rules")
struct CitusReadinessTests {
    @Test("the declaration names users and the credential owners as reference tables, and the queue as local")
    func declaration() throws {
        let tables = try CitusTables.declared()
        #expect(Set(tables.reference) == ["users", "api_token_owners", "web_session_owners"])
        #expect(Set(tables.local) == ["import_jobs", "schema_migrations"])
        #expect(throws: CitusTables.ParseError.self) { try CitusTables.parse("refrence users\n") }
    }

    /// Runs `body` on a connection to a new migrated database, dropped afterwards.
    static func withScratchDatabase<T>(_ body: (Connection, String) throws -> T) throws -> T {
        let database = try TestDatabase.migrated()
        defer { try? TestDatabase.drop(database.name) }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        return try body(connection, database.conninfo)
    }

    /// Runs deploy/citus/distribute.sh with `arguments`: its exit status and what it printed.
    static func distribute(_ arguments: [String]) throws -> (status: Int32, printed: String) {
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/bin/bash")
        script.arguments = [TestDatabase.repositoryRoot + "/deploy/citus/distribute.sh"] + arguments
        let output = Pipe()
        script.standardOutput = output
        script.standardError = FileHandle.nullDevice
        try script.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        return (script.terminationStatus, printed)
    }

    @Test("the migrated schema keeps every rule", arguments: CitusRule.all)
    func migratedSchemaKeeps(_ rule: CitusRule) throws {
        let offenders = try Self.withScratchDatabase { connection, _ in
            try rule.offenders(connection, CitusTables.declared())
        }
        #expect(offenders == [])
    }

    /// A migration written to break one rule, and what the rule must name.
    struct Breach: Sendable, CustomTestStringConvertible {
        var rule: Int
        var migration: String
        var offender: String
        var testDescription: String { offender }
    }

    static let person = "user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE"

    static let breaches: [Breach] = [
        Breach(
            rule: 0, migration: "CREATE TABLE shared_notes (id bigint PRIMARY KEY, note text)", offender: "shared_notes"
        ),
        Breach(
            rule: 1,
            migration: "CREATE TABLE night_tags (\(person), id bigint, tag text UNIQUE, PRIMARY KEY (user_id, id))",
            offender: "night_tags.night_tags_tag_key"),
        Breach(
            rule: 1, migration: "CREATE TABLE night_marks (\(person), mark text)", offender: "night_marks"),
        Breach(
            rule: 1,
            migration: """
                CREATE TABLE quiet_hours (\(person), id bigint, span tsrange, PRIMARY KEY (user_id, id),
                    CONSTRAINT quiet_hours_no_overlap EXCLUDE USING gist (span WITH &&))
                """, offender: "quiet_hours.quiet_hours_no_overlap"),
        Breach(
            rule: 2,
            migration: """
                CREATE TABLE import_notes (\(person), id bigint, import_owner bigint NOT NULL, import_id bigint NOT NULL,
                    PRIMARY KEY (user_id, id), FOREIGN KEY (import_owner, import_id) REFERENCES imports (user_id, id))
                """, offender: "import_notes_import_owner_import_id_fkey"),
        Breach(
            rule: 3,
            migration: """
                CREATE TABLE job_notes (\(person), job_id bigint NOT NULL, PRIMARY KEY (user_id, job_id),
                    FOREIGN KEY (user_id, job_id) REFERENCES import_jobs (user_id, id))
                """, offender: "job_notes_user_id_job_id_fkey"),
        Breach(
            rule: 3,
            migration:
                "ALTER TABLE api_token_owners ADD FOREIGN KEY (user_id, token_id) REFERENCES api_tokens (user_id, id)",
            offender: "api_token_owners_user_id_token_id_fkey"),
        Breach(
            rule: 4,
            migration:
                "CREATE POLICY readers_of_active ON nights TO sleepledger_readonly USING (user_id IN (SELECT id FROM users))",
            offender: "readers_of_active on nights"),
        Breach(
            rule: 5, migration: "CREATE TABLE night_notes (\(person), id serial, PRIMARY KEY (user_id, id))",
            offender: "night_notes.id"),
        Breach(
            rule: 5,
            migration:
                "CREATE TABLE nap_notes (\(person), id integer GENERATED ALWAYS AS IDENTITY, PRIMARY KEY (user_id, id))",
            offender: "nap_notes.id"),
        Breach(
            rule: 6,
            migration: """
                CREATE FUNCTION touch_everyone() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN UPDATE rollup_state SET summaries_stale = true; RETURN NEW; END $$;
                CREATE TRIGGER nights_touch AFTER INSERT ON nights FOR EACH ROW EXECUTE FUNCTION touch_everyone();
                """, offender: "nights_touch on nights"),
        Breach(rule: 7, migration: "CREATE VIEW all_nights AS SELECT * FROM nights", offender: "all_nights"),
    ]

    @Test("each rule catches a migration that breaks it, in a scratch database", arguments: breaches)
    func ruleCatchesBreach(_ breach: Breach) throws {
        try Self.withScratchDatabase { connection, _ in
            try connection.executeScript(breach.migration)
            let rule = CitusRule.all[breach.rule]
            let offenders = try rule.offenders(connection, CitusTables.declared())
            #expect(offenders == [breach.offender], "\(rule.name)")
        }
    }

    @Test(
        "deploy/citus/distribute.sh --print places every table as the catalog and the declaration say, in foreign-key order"
    )
    func distributionScript() throws {
        try Self.withScratchDatabase { connection, conninfo in try Self.checkDistribution(connection, conninfo) }
    }

    static func checkDistribution(_ connection: Connection, _ conninfo: String) throws {
        let declared = try CitusTables.declared()
        let (status, printed) = try distribute(["--print", "--shard-count", "48", "--database", conninfo])
        #expect(status == 0)

        // The placed tables, in the order the script places them.
        func argument(_ line: Substring) -> String? {
            line.split(separator: "'").dropFirst().first.map(String.init)
        }
        let lines = printed.split(separator: "\n")
        let references = lines.filter { $0.hasPrefix("SELECT create_reference_table(") }.compactMap(argument)
        let locals = lines.filter { $0.hasPrefix("SELECT citus_add_local_table_to_metadata(") }.compactMap(argument)
        let distributed = lines.filter { $0.hasPrefix("SELECT create_distributed_table(") }
        let order = lines.compactMap { $0.hasPrefix("SELECT c") ? argument($0) : nil }

        let withUserID = try connection.execute(
            """
            SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'user_id'
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT a.attisdropped
            """
        ).rows.compactMap { try $0.string(0) }
        let people = Set(withUserID).subtracting(declared.reference + declared.local)
        #expect(Set(references) == Set(declared.reference))
        #expect(Set(locals) == Set(declared.local))
        #expect(Set(distributed.compactMap(argument)) == people)
        #expect(order.count == Set(order).count, "each table once")
        #expect(people.isSuperset(of: ["sleep_samples", "nights", "summaries", "api_tokens", "web_sessions"]))

        // Every one distributed by user_id; the first alone, the others co-located with it.
        let first = try #require(distributed.first.flatMap(argument))
        #expect(distributed.first?.hasSuffix("'user_id', colocate_with => 'none');") == true)
        #expect(distributed.dropFirst().allSatisfy { $0.hasSuffix("'user_id', colocate_with => '\(first)');") })
        #expect(lines.contains("SET citus.shard_count = 48;"))
        #expect(
            lines.contains {
                $0.hasPrefix("ALTER DATABASE ") && $0.hasSuffix(" SET citus.propagate_set_commands = 'local';")
            })

        // A foreign key's target is placed before the table that refers to it.
        let foreignKeys = try connection.execute(
            """
            SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint
            WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conrelid <> confrelid
            """
        ).rows.map { (try $0.string(0) ?? "", try $0.string(1) ?? "") }
        #expect(!foreignKeys.isEmpty)
        for (source, target) in foreignKeys {
            let (s, t) = (order.firstIndex(of: source), order.firstIndex(of: target))
            #expect(s != nil && t != nil && t! < s!, "\(target) before \(source)")
        }
    }

    @Test("distribute.sh refuses a table that has no user_id and is not declared")
    func distributionScriptRefusesUndeclared() throws {
        try Self.withScratchDatabase { connection, conninfo in
            try connection.execute("CREATE TABLE shared_notes (id bigint PRIMARY KEY)")
            let status = try Self.distribute(["--print", "--database", conninfo]).status
            #expect(status == 65)
        }
    }

    @Test("a view that runs as its caller passes the view rule")
    func invokerViewPasses() throws {
        try Self.withScratchDatabase { connection, _ in
            try connection.execute("CREATE VIEW own_nights WITH (security_invoker = true) AS SELECT * FROM nights")
            let offenders = try CitusRule.all[7].offenders(connection, CitusTables.declared())
            #expect(offenders == [])
        }
    }
}
