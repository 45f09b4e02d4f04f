// Package uniqueness measures the re-identification risk that comes from rare combinations
// of key attributes: sample and population frequencies of key combinations, P(PU|SU) (the
// share of sample uniques that are population uniques), record-level risk E[1/F_j | f_j]
// with population estimators (Benedetti–Franconi, Skinner–Holmes, Skinner–Elliot), and
// k-anonymity, l-diversity and t-closeness checks on the same keys (design note, §5).
package uniqueness
