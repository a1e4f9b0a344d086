import LedgerServices
import PostgresClient
import Testing

@Suite("Database configuration")
struct DatabaseConfigurationTests {
    @Test(
        "the source is chosen by DATABASE_URL, then PG* variables, then the embedded folder",
        arguments: [
            (
                ["DATABASE_URL": "postgresql://db/ledger", "PGHOST": "x", "SLEEPLEDGER_HOME": "/srv/s"], false,
                DatabaseConfiguration.Source.url("postgresql://db/ledger")
            ),
            (["PGHOST": "db.internal"], false, .libpqEnvironment),
            (["PGSERVICE": "ledger", "SLEEPLEDGER_HOME": "/srv/s"], false, .libpqEnvironment),
            (["PGDATABASE": "ledger"], true, .libpqEnvironment),
            (
                ["DATABASE_URL": "", "PGPASSWORD": "only-a-password", "HOME": "/home/anna"], false,
                .embedded(home: "/home/anna/.local/share/sleepledger")
            ),
            (["SLEEPLEDGER_HOME": "/srv/sleep"], true, .embedded(home: "/srv/sleep")),
            (["HOME": "/root"], true, .embedded(home: "/var/lib/sleepledger")),
            (["HOME": "/home/ben/"], false, .embedded(home: "/home/ben/.local/share/sleepledger")),
        ])
    func resolution(environment: [String: String], isRoot: Bool, expected: DatabaseConfiguration.Source) throws {
        let configuration = try DatabaseConfiguration(environment: environment, isRoot: isRoot)
        #expect(configuration.source == expected)
    }

    @Test("descriptions and redacted connection strings never show the password")
    func redaction() throws {
        let url = try DatabaseConfiguration(
            environment: ["DATABASE_URL": "postgresql://anna:hunter2@db.example:6432/ledger?sslmode=require"])
        #expect(!url.description.contains("hunter2"))
        #expect(url.description.contains("password=***"))
        #expect(url.description.contains("host=db.example"))
        // Keywords come out in libpq's own order (user, password, ..., dbname, host, ...).
        #expect(
            ConnectionString.redacted("host=/run/x password='p w' dbname=d") == "password=*** dbname=d host=/run/x"
        )
        #expect(ConnectionString.redacted("host='unterminated") == "<unparsable connection string>")
    }

    @Test("a parameter can be replaced in a URL or key=value string")
    func settingParameter() throws {
        #expect(
            try ConnectionString.settingParameter("dbname", to: "other", in: "postgresql://a@h:5/db")
                == "user='a' dbname='other' host='h' port='5'")
        #expect(
            try ConnectionString.settingParameter("dbname", to: "x y", in: "host=/tmp/s")
                == "dbname='x y' host='/tmp/s'")
        #expect(ConnectionString.conninfoValue("it's a\\path") == "'it\\'s a\\\\path'")
    }
}
