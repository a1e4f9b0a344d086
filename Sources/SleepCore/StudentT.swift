/// Student's t quantiles for the two-sided 80 % intervals of the need estimate.
enum StudentT {
    /// t(0.90, dof) for dof 1...30 (standard tables).
    static let quantiles90: [Double] = [
        3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372,
        1.363, 1.356, 1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325,
        1.323, 1.321, 1.319, 1.318, 1.316, 1.315, 1.314, 1.313, 1.311, 1.310,
    ]

    /// t(0.90, dof); the normal quantile 1.2816 beyond 30 degrees of freedom.
    static func quantile90(degreesOfFreedom dof: Int) -> Double {
        guard dof >= 1 else { return quantiles90[0] }
        return dof <= quantiles90.count ? quantiles90[dof - 1] : 1.2816
    }
}
