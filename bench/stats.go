package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none. It does not reorder xs.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Row is one line of a Table: a target's figures, usually medians over runs.
type Row struct {
	Name   string
	Runs   int
	RPS    float64
	P50    time.Duration
	P99    time.Duration
	Errors int64 // summed over runs, not a median: any error matters
	// ClientCPU and ServerCPU are cores used (CPU seconds per second) by the
	// generator and the server; zero means not measured.
	ClientCPU float64
	ServerCPU float64
	// ServerCPUPerReq is the server's CPU time per request. It moves less
	// than RPS when other processes share the machine, so it is the better
	// figure for comparing handlers on a noisy box.
	ServerCPUPerReq time.Duration
	// Note replaces the figures, e.g. why a target was skipped; it is
	// printed under the table.
	Note string
	// Baseline, when set, names the row this row's ratio is taken against
	// instead of the table's (a proxy against the bare proxy).
	Baseline string
}

// Summarize folds several runs of one target into a Row: median RPS and
// latencies, summed errors.
func Summarize(name string, rs []Result) Row {
	r := Row{Name: name, Runs: len(rs)}
	var rps, p50, p99 []float64
	for _, x := range rs {
		rps = append(rps, x.RPS)
		p50 = append(p50, float64(x.P50))
		p99 = append(p99, float64(x.P99))
		r.Errors += x.Errors()
	}
	r.RPS = Median(rps)
	r.P50 = time.Duration(Median(p50))
	r.P99 = time.Duration(Median(p99))
	return r
}

// Table prints rows side by side with each row's RPS as a ratio to the
// Baseline row's.
type Table struct {
	Baseline string
	Rows     []Row
}

// Add appends a row.
func (t *Table) Add(r Row) { t.Rows = append(t.Rows, r) }

// WriteTo writes the table, aligned, to w.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	rps := map[string]float64{}
	for _, r := range t.Rows {
		if r.Note == "" {
			rps[r.Name] = r.RPS
		}
	}
	cpu := false
	for _, r := range t.Rows {
		cpu = cpu || r.ClientCPU > 0 || r.ServerCPU > 0
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "name\truns\trps\tp50\tp99\terrors\tratio\t"
	if cpu {
		head += "gen cpu\tsrv cpu\tsrv cpu/req\t"
	}
	fmt.Fprintln(tw, head)
	var notes []string
	for _, r := range t.Rows {
		if r.Note != "" {
			// Notes go under the table: a long cell would widen its column.
			notes = append(notes, fmt.Sprintf("# %s: %s\n", r.Name, r.Note))
			continue
		}
		ratio := "-"
		baseline := t.Baseline
		if r.Baseline != "" {
			baseline = r.Baseline
			// A row that is its own baseline (a peer's) needs no note.
			if r.Baseline != r.Name {
				notes = append(notes, fmt.Sprintf("# %s: ratio against %s\n", r.Name, r.Baseline))
			}
		}
		if base := rps[baseline]; base > 0 {
			ratio = fmt.Sprintf("%.2fx", r.RPS/base)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%d\t%s\t", r.Name, r.Runs, r.RPS,
			fmtDur(r.P50), fmtDur(r.P99), r.Errors, ratio)
		if cpu {
			fmt.Fprintf(tw, "%.2f\t%.2f\t%s\t", r.ClientCPU, r.ServerCPU, fmtDur(r.ServerCPUPerReq))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return 0, err
	}
	for _, n := range notes {
		b.WriteString(n)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// fmtDur prints a latency with three significant figures in µs or ms.
func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}
