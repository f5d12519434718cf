// Package bayes is the evidence framework of the paper for physics-informed
// networks: the model, its training with the hyperparameters set by the
// evidence, and the Laplace approximation of the posterior over the
// weights at the end (a pkg/curv Laplace, from the fit's data Hessians).
//
// # Data flow
//
//	pde.Problem                 inputs, terms (points, targets, residuals), unknowns
//	  │ NewConfig                the problem validated (Problem.Validate), Settings.Schedule
//	  │                          (pkg/problems registers the paper's) and the defaults
//	  │                          filled in, the combination checked, the beta groups
//	  │                          worked out: a Config, checked and resolved once
//	  ▼
//	NewModel                    one ad graph: E_D^t per beta group, its gradient,
//	  │                          H_t (Gauss-Newton or exact)
//	  ▼
//	Train, TrainConfig          Adam on E_T = Σ β_t E_D^t + Σ α_i E_W^i, hyperparameter
//	  │                          steps on the evidence, polish, MacKay's final rounds
//	  ▼
//	Fit                         the trained model, α, β, history, status, warnings
//	  │ Fit.Hessians,            A = Σ β_t H_t + diag(α): ln|A|, γ, Occam factors,
//	  │ curv.NewLaplace          the log evidence
//	  ▼
//	curv.Laplace                Fit.Laplace
//	  │ Fit.Predict, PredictOutput(s), PredictQuantity
//	  ▼
//	mean and σ = sqrt(gᵀ A⁻¹ g) at any points, of u, of each field of a
//	system (Problem.Outputs: one network output each) or of any jet quantity
//
// Around it, in packages of their own that build on a [Fit]:
//
//   - pkg/band: the bands beyond the paper's (the residual check at fresh
//     points, the held-out and the calibrated band, the overconfidence
//     warning), through [Fit.ModelOn] (and [Fit.ModelOnNet]), [Fit.LaplaceAt]
//     and [Fit.WithBand].
//   - pkg/record: a fit as a JSON line (NewResult), ensembles of them read
//     back, summarized and ranked, and a fit rebuilt from its line
//     (Restore, through [FitAt]).
//   - pkg/runner: many fits of a problem on worker goroutines
//     (TrainEnsemble), ranked by evidence.
//   - pkg/posterior: the posterior as an mcmc.LogDensity and the Laplace
//     band against a sampler's (CompareHMC, SampleUnknowns), through
//     [Fit.ModelCopy].
//   - pkg/score: a fit against the truth, the errors on a grid
//     ([Fit.GridErrors]) and the unknowns' intervals ([Fit.Unknowns]).
//
// # Settings
//
// [Settings] holds at its top level what a user sets most (Schedule,
// Recipe, Seed, Hidden, Epochs, LR, Hessian, Updater, the alpha and beta
// groups, KnownNoise, Resample, Curvature, Threads) and one small struct
// per step of the fit:
//
//	Hyper  HyperSteps      Start, Every, LR, Alpha0, Beta0, UntieAt: the steps during Adam
//	Fixed  FixedWeights    On, Alpha, Beta, Mean: the fixed-weight baseline
//	Polish PolishSettings  On, Iter, Method, Memory: the minimization after Adam
//	Final  FinalRounds     Rounds, Tol, Betas: MacKay's rounds after the polish
//
// A zero field means the schedule's value, else the default written on it;
// [NewConfig] fills them, names a wrong one as the user writes it
// (Hyper.LR) and returns the [Config] that the fit, its record (pkg/record)
// and an ensemble's fits (pkg/runner) share: the problem is validated and
// the settings are resolved once, where they come in, and nothing
// downstream validates, parses or resolves them again. [Train] of Settings is [TrainConfig] of their Config;
// [Settings.Resolve] gives the resolved settings alone.
//
// # Where things are
//
//   - settings.go, enums.go: Settings and its typed choices (Recipe,
//     PolishMethod, RoundBetas, Updater, the beta grouping, the curvature
//     structure) with their Parse functions; resolve.go: the resolution
//     (NewConfig, Resolve), in named steps; config.go: Config.
//   - model.go: Model, E_D, gradients, H_t.
//   - train.go: Train (the Adam epochs, the final rounds, the end);
//     hyper.go: the hyperparameter steps, the evidence under a structure,
//     Fit.Hessians (the dense Laplace's input) and Comb;
//     polish.go: the polish and the state a final round can undo.
//   - fit.go: Fit, its status, Predict and GridErrors; outputs.go: the
//     same for each field of a system; unknowns.go: the unknowns'
//     marginals from A⁻¹; seam.go,
//     compare.go: what the packages around build on (FitAt, Fit.ModelOn,
//     Fit.ModelCopy ...).
//
// The same seed gives the same bits: every random draw takes a seed and a
// compiled program never runs in parallel internally.
package bayes
