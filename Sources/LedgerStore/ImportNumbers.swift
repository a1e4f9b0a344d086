/// Each person's import numbers (table `import_counters`, migration 0015): a person's
/// uploads and command-line imports are numbered 1, 2, 3, ... in one numbering, the number
/// the API and the pages call an import's id. The internal ids (`import_jobs.id`,
/// `imports.id`) are one sequence for everybody and never shown to a person.
enum ImportNumbers {
    /// A `WITH` item named `counter` whose one row's `last_number` is user `$1`'s next
    /// number. It makes the person's counter row when there is none, and locks the row
    /// until the transaction (or the savepoint's rollback) ends, so numbers never repeat.
    static let nextNumber = """
        counter AS (
            INSERT INTO import_counters (user_id, last_number) VALUES ($1, 1)
            ON CONFLICT (user_id) DO UPDATE SET last_number = import_counters.last_number + 1
            RETURNING last_number)
        """
}
