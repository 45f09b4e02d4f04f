// Package distances holds the aggregation distances of distance-based record linkage and
// the pairwise core that evaluates them between every record of one file and every record
// of another without ever storing the N×M matrix.
//
// Each operator aggregates the per-attribute differences diff_i(a,b) = (z_i(a) − z_i(b))² of
// two standardised records (Diff): Euclidean (their mean), weighted mean WM, OWA, the
// symmetric bilinear form xᵀWx (x = a − b, W positive semi-definite) with Mahalanobis as a
// special case, and the Choquet integral. Every operator is linear in its parameters once
// the data are fixed, d_θ(a,b) = θ·φ(a,b) (Operator.Params, Operator.Features); the
// worst-case optimiser learns θ on that form.
package distances
