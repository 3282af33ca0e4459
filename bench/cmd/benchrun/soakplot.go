package main

import (
	"errors"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// soakSeries is one line of the chart.
type soakSeries struct {
	name  string
	color color.Color
	value func(soakSample) float64
}

var (
	colorBlue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colorOrange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	colorGreen  = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	colorRed    = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	colorGrey   = color.RGBA{R: 150, G: 150, B: 150, A: 255}
)

// plotSoak draws the samples as a PNG at path: memory, goroutines,
// throughput and answers other than 2xx, each over the elapsed minutes.
func plotSoak(path string, samples []soakSample, title string) error {
	if len(samples) == 0 {
		return errors.New("no samples to draw")
	}
	panels := []struct {
		title, y string
		series   []soakSeries
	}{
		{title, "MiB", []soakSeries{
			{"RSS", colorBlue, func(s soakSample) float64 { return mib(s.RSS) }},
			{"live heap", colorGreen, func(s soakSample) float64 { return mib(int64(s.HeapLive)) }},
			{"allocated heap", colorGrey, func(s soakSample) float64 { return mib(int64(s.HeapAlloc)) }},
		}},
		{"", "goroutines", []soakSeries{
			{"goroutines", colorOrange, func(s soakSample) float64 { return float64(s.Goroutines) }},
		}},
		{"", "requests/s", []soakSeries{
			{"requests/s", colorBlue, func(s soakSample) float64 { return s.RPS }},
		}},
		{"", "answers per sample", []soakSeries{
			{"expected non-2xx", colorGrey, func(s soakSample) float64 {
				t := tally{classes: s.Classes}
				return float64(t.expected())
			}},
			{"unexpected", colorRed, func(s soakSample) float64 {
				return float64(s.Classes[class4xx] + s.Classes[class5xx] + s.Classes[classTransport])
			}},
		}},
	}
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "minutes"
		p.Y.Label.Text = pn.y
		p.X.Min, p.Y.Min = 0, 0
		p.Legend.Top = true
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
		for _, se := range pn.series {
			xys := make(plotter.XYs, len(samples))
			for j, s := range samples {
				xys[j] = plotter.XY{X: s.Elapsed.Minutes(), Y: se.value(s)}
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return err
			}
			l.Color = se.color
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(se.name, l)
		}
		// Headroom for the legend above the lines.
		p.Y.Max = max(p.Y.Max*1.35, 1)
		plots[i] = []*plot.Plot{p}
	}
	img := vgimg.New(8*vg.Inch, 10*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Millimeter, PadY: 3 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
