// Package fault carries failures that tests inject into training through
// a context, so that the divergence path can be exercised without a public
// hook in bayes.Settings.
package fault

import "context"

type nanAtKey struct{}

// WithNaNAt returns a context under which bayes.Train poisons the loss with
// a NaN at the given epoch (1-based); 0 means never.
func WithNaNAt(ctx context.Context, epoch int) context.Context {
	return context.WithValue(ctx, nanAtKey{}, epoch)
}

// NaNAt is the epoch WithNaNAt set on ctx, 0 when none.
func NaNAt(ctx context.Context) int {
	n, _ := ctx.Value(nanAtKey{}).(int)
	return n
}
