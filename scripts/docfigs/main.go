// Command docfigs checks that every figure the README and docs/ quote from
// a run (a bpinn:table or bpinn:value mark, scripts/docfig) equals that
// run's results.json; with -w it rewrites the ones that differ.
//
//	go run ./scripts/docfigs [-w]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/evidence-pinn/bpinn/scripts/docfig"
)

func main() {
	write := flag.Bool("w", false, "rewrite the pages whose quoted figures differ from their runs")
	flag.Parse()
	stale, err := docfig.Update(".", *write)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docfigs:", err)
		os.Exit(2)
	}
	for _, s := range stale {
		verb := "differ from their runs"
		if *write {
			verb = "rewritten"
		}
		fmt.Printf("%s: %d quoted figures %s\n", s.Page, s.Blocks, verb)
	}
	if len(stale) > 0 && !*write {
		fmt.Println("docfigs: make docs-figures rewrites them")
		os.Exit(1)
	}
}
