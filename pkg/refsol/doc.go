// Package refsol computes the reference solutions of the two PINNacle
// problems the project studies, so that a fit is scored without
// PINNacle's COMSOL exports: the lid-driven cavity (NS2d-C: u, v, p,
// LidDriven) and Laplace's equation on a plate with four holes
// (Poisson2d-C: u, PoissonHoles). Each is a small finite-difference
// solver whose result interpolates to any point of its domain; the
// Default constructors solve once per process at the resolution the
// tests hold to PINNacle's exports (docs/reference-solutions.md). ReadDat
// reads those exports, or a reference file a user gives, and Table.L2RE
// scores a solution against one as PINNacle does.
package refsol
