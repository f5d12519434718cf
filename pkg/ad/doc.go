// Package ad is the automatic differentiation under every model of the
// toolkit: define-then-run reverse mode over row-major float64 matrices whose
// rows are points, with derivatives that can be differentiated again.
//
// # Overview
//
// A [Graph] holds nodes; building a node computes nothing. Leaves are
// [Graph.Input] (data fed per run, rows = points: collocation points,
// targets), [Graph.Param] (shared by every point: weights, unknown
// coefficients) and constants ([Graph.Fill], [Graph.Scalar]). Operations
// combine nodes: elementwise [Add], [Sub], [Mul], [Div], [Scale],
// [AddConst], [Neg], [Square], [Pow], [Exp], [Log], [Sin], [Cos], [Tanh],
// [Sigmoid], [Softplus], [Abs], [Sign]; shapes with [Broadcast],
// [SliceCol], [PadCol], [Reshape]; reductions [Sum], [Mean], [SumRows], [SumCols]; products
// [MatMul], [MatMulT], [MatTMul], [RowOuter].
//
// [Graph.Compile] turns output nodes into a [Program] (one slab of buffers,
// no allocation per [Program.Run]); [Program.Set] and [Program.Bind] feed
// the leaves, [Program.Value] reads a result.
//
// # Derivatives
//
//   - [Grad]: the gradient of a 1 x 1 loss with respect to any nodes, itself
//     a node of the graph (so a gradient of a loss built from input
//     derivatives is a second-order computation, built once).
//   - [InputGrad], [D] and [Jet]: per-point derivatives of a batched output
//     with respect to its Input: u_x, u_t, u_xx, mixed. A PDE residual is
//     built from them; pkg/pde wraps a Jet in named access (pde.Vars:
//     v.D("t"), v.D2("x", "x")), which is what a problem's author uses.
//   - [JacobianRows], [NewJacobian]: the per-point Jacobian of a residual
//     (N x 1) with respect to the parameters in one reverse pass: the
//     Gauss-Newton matrix J^T J of the evidence framework. A parameter must
//     enter a batched value through MatMul, MatMulT or Broadcast.
//   - [NewHessian]: exact Hessians by reverse-over-reverse
//     Hessian-vector products.
//
// Every rule lives in one table (rules.go) with its formula, each built from
// the ops above; the tests check every rule, first and second order, against
// central finite differences.
//
// # Errors
//
// Building a graph with inconsistent shapes, or asking a Jet for an input it
// does not have, is a programmer error and panics with the op and the
// shapes. Code that builds graphs from a user's function (pde.Problem's
// residuals) recovers such a panic and returns it as an error naming the
// term.
package ad
