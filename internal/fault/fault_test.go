package fault

import (
	"context"
	"testing"
)

func TestNaNAt(t *testing.T) {
	if n := NaNAt(context.Background()); n != 0 {
		t.Errorf("NaNAt of a plain context = %d, want 0", n)
	}
	ctx := WithNaNAt(context.Background(), 7)
	if n := NaNAt(ctx); n != 7 {
		t.Errorf("NaNAt = %d, want 7", n)
	}
	if n := NaNAt(context.WithoutCancel(ctx)); n != 7 {
		t.Errorf("NaNAt through a derived context = %d, want 7", n)
	}
}
