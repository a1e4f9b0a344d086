/// One thread's share of a ``CPUBudget``: made on that thread (its clock starts then) and
/// used only there; every ``checkpoint()`` charges what the thread used since the last one.
final class ThreadCPUClock {
    let budget: CPUBudget
    private var last: Int64

    /// Starts charging the calling thread's processor time to `budget`.
    init(_ budget: CPUBudget) {
        self.budget = budget
        self.last = budget.limitNanoseconds == nil ? 0 : CPUBudget.threadNanoseconds()
    }

    /// Charges the time since the last checkpoint; throws once the budget is spent. Free
    /// when the budget has no limit.
    func checkpoint() throws(ImportError) {
        guard budget.limitNanoseconds != nil else { return }
        let now = CPUBudget.threadNanoseconds()
        let spent = max(now - last, 0)
        last = now
        try budget.charge(spent)
    }
}
