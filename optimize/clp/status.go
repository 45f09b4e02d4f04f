package clp

import "strconv"

// Status is the outcome of a solve, CLP's problem status.
type Status int

// Values of Status. They equal CLP's status codes.
const (
	// Unknown: the model has not been solved since it was loaded or read.
	Unknown Status = -1
	// Optimal: an optimal solution was found.
	Optimal Status = 0
	// PrimalInfeasible: the constraints have no solution.
	PrimalInfeasible Status = 1
	// DualInfeasible: the dual has no solution; for a primal feasible model
	// this means the objective is unbounded.
	DualInfeasible Status = 2
	// StoppedOnLimit: the solve stopped on the iteration or time limit.
	StoppedOnLimit Status = 3
	// StoppedOnErrors: the solve stopped due to numerical or other errors.
	StoppedOnErrors Status = 4
	// StoppedByEvent: the solve was stopped by an event handler.
	StoppedByEvent Status = 5
)

// String returns a readable description of s.
func (s Status) String() string {
	switch s {
	case Unknown:
		return "unknown"
	case Optimal:
		return "optimal"
	case PrimalInfeasible:
		return "primal infeasible"
	case DualInfeasible:
		return "dual infeasible (unbounded)"
	case StoppedOnLimit:
		return "stopped on iteration or time limit"
	case StoppedOnErrors:
		return "stopped due to errors"
	case StoppedByEvent:
		return "stopped by event handler"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Sense is the direction of optimisation.
type Sense int

// Values of Sense. They equal CLP's optimization direction.
const (
	Minimize Sense = 1
	Maximize Sense = -1
)

// String returns "minimize" or "maximize".
func (s Sense) String() string {
	switch s {
	case Minimize:
		return "minimize"
	case Maximize:
		return "maximize"
	}
	return "Sense(" + strconv.Itoa(int(s)) + ")"
}

// BasisStatus is the simplex status of a column or of a row's slack.
type BasisStatus uint8

// Values of BasisStatus. They equal CLP's ClpSimplex::Status codes.
const (
	Free       BasisStatus = 0 // nonbasic free variable
	Basic      BasisStatus = 1 // basic
	AtUpper    BasisStatus = 2 // nonbasic at its upper bound
	AtLower    BasisStatus = 3 // nonbasic at its lower bound
	Superbasic BasisStatus = 4 // nonbasic between its bounds
	Fixed      BasisStatus = 5 // nonbasic with equal bounds
)

// String returns the name of s.
func (s BasisStatus) String() string {
	switch s {
	case Free:
		return "free"
	case Basic:
		return "basic"
	case AtUpper:
		return "at upper"
	case AtLower:
		return "at lower"
	case Superbasic:
		return "superbasic"
	case Fixed:
		return "fixed"
	}
	return "BasisStatus(" + strconv.Itoa(int(s)) + ")"
}
