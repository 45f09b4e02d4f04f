// Package datasets loads, aligns and standardises the microdata files that reid audits.
//
// An original file X and a masked file X' are read through Apache Arrow (CSV, Arrow IPC /
// Feather v2, Parquet) in record batches into a columnar Table: float64 numeric columns,
// dictionary-coded categorical columns and explicit missing-value masks. Pair matches the
// attributes of the two files by name and records the true link between their rows (row
// order or an id column); Standardize z-scores each numeric attribute within its own file,
//
//	z = (v − mean) / sd,  sd = sqrt(Σ (v − mean)² / (n − 1)),
//
// the convention of the record-linkage literature (e.g. Domingo-Ferrer & Torra, "Distance-based
// and probabilistic record linkage for re-identification of records with categorical variables",
// 2002) and of the reference figures reid is checked against. StandardizeLike puts a file
// that is a sample of another's records on the other's scale instead.
//
// Errors name the file and, where it applies, the column and the 1-based data row (the header
// is not counted) so that a user can find the offending value; see InputError.
package datasets
