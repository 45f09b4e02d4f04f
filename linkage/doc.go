// Package linkage re-identifies records of a masked file and measures how many an intruder
// gets right.
//
// DBRL (distance-based record linkage) links each record of one file to its nearest record
// of the other under an aggregation distance of package distances. Measure turns the links
// into the Reid family: Reid, the share of records whose nearest record is unique and true;
// Reid with anonymity sets, crediting 1/|A_b| when the true record is among the |A_b|
// records tied at the best distance; Reid@k; and the distributions of |A_b| and of the true
// partner's rank.
//
// PRL is probabilistic record linkage (Fellegi & Sunter 1969): agreement patterns counted
// over all pairs without storing them, m and u fitted by EM on the pattern counts (or from
// the true pairs: the supervised, worst-case variant), weights log2(m/u), and links chosen
// by thresholds, by the best weight per record or by a global one-to-one assignment, each
// with its Reid.
//
// KnownLinks implements the transparency attacks behind K.Reid, the share of links the
// intruder knows to be correct; KR.Reid is the pair (K.Reid, Reid).
//
// The measures are defined in §3 of design.md, the project's architecture document, kept
// beside the repository rather than in the module; "design note §3" in this package's
// documentation refers to it.
package linkage
