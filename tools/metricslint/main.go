// Command metricslint checks Prometheus text exposition read from standard input the way
// `promtool check metrics` does (the same linter, client_golang's promlint): it prints each problem
// as "metric text" and exits 3 when there is one, 1 when the input does not parse, 0 otherwise.
// Sluice's MetricsPortTest runs it on every /metrics scrape. It exists because building promtool
// itself (all of Prometheus) took 4.5 minutes of CI's two cores, for this one check.
package main

import (
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
)

func main() {
	problems, err := promlint.New(os.Stdin).Lint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error while linting:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p.Metric, p.Text)
	}
	if len(problems) > 0 {
		os.Exit(3)
	}
}
