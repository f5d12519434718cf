// Package geom describes the domains of PINN problems: where the collocation
// points of an equation lie and where its boundary conditions hold.
//
// # Overview
//
// A Domain is a closed region of R^d (d = 1 to 6) that answers a few
// questions: its dimension, its bounding box, whether a point lies in it, a
// signed distance (negative inside), and the pieces of its boundary. The
// primitives are Box (any dimension 1-4), Ball (2-D disk, 3-D to 5-D ball) and
// Polygon (2-D, simple). Union, Intersection and Difference combine them
// (constructive solid geometry), Named prefixes the names of a domain's
// boundary parts, and SpaceTime is a domain times a time interval.
//
// SampleInterior draws exactly n points inside a domain: a Scheme (Uniform,
// LatinHypercube or Halton) fills the bounding box and points outside are
// rejected until n are accepted. SampleBoundary draws exactly n points on
// the boundary, uniform by arc length (2-D) or area (3-D), each with its
// outward unit normal and the name of its part; a term picks parts by name.
// Parts lists the parts and their measures (length or area).
//
// # Invariants
//
// Every boundary piece maps the unit cube onto its surface with a constant
// Jacobian, so uniform parameters give points uniform by measure. The part
// of an operand's boundary that a CSG result keeps is the set where a step
// of Offset along the normal leaves the result and a step against it enters
// it; where two operands' boundaries coincide with the same normal, the
// first operand's piece keeps the points. The normals of a subtracted
// operand are flipped. Domains do not change once built and are safe for
// concurrent use.
//
// # Error Handling
//
// Constructors and samplers return one-line errors that name what is wrong
// and what to do: a box with lo >= hi, a disk of non-positive radius, a
// polygon that is not simple, NaN coordinates, dimensions that do not match
// in a CSG operation, n <= 0, an empty domain or boundary, an unknown part
// name. Contains panics when the point's length is not the domain's
// dimension (a programmer's mistake); Check returns an error for points a
// user gives that are malformed or outside the domain.
//
// # Determinism
//
// Every sampler reads its randomness from the rand.Source it is given: the
// same source state gives the same points, bit for bit.
package geom
