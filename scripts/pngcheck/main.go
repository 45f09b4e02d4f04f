// Command pngcheck checks that screenshots of charts are not blank: for each PNG it counts
// the pixels that are not near-white and the saturated (coloured) ones, and fails when a
// file has fewer than -min-ink of the former or -min-colour of the latter.
//
//	go run ./scripts/pngcheck [-min-ink 0.01] [-min-colour 200] shot1.png shot2.png ...
package main

import (
	"flag"
	"fmt"
	"image"
	_ "image/png"
	"os"
)

func main() {
	minInk := flag.Float64("min-ink", 0.01, "smallest share of non-white pixels")
	minColour := flag.Int("min-colour", 200, "smallest number of coloured pixels")
	flag.Parse()
	failed := false
	for _, path := range flag.Args() {
		ink, colour, total, err := count(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pngcheck: %s: %v\n", path, err)
			failed = true
			continue
		}
		share := float64(ink) / float64(total)
		ok := share >= *minInk && colour >= *minColour
		verdict := "ok"
		if !ok {
			verdict, failed = "BLANK", true
		}
		fmt.Printf("%-5s %s: %.2f%% non-white pixels, %d coloured\n", verdict, path, 100*share, colour)
	}
	if failed || flag.NArg() == 0 {
		os.Exit(1)
	}
}

func count(path string) (ink, colour, total int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return 0, 0, 0, err
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			total++
			if r < 240 || g < 240 || bl < 240 {
				ink++
			}
			hi, lo := max(r, g, bl), min(r, g, bl)
			if hi-lo > 80 {
				colour++
			}
		}
	}
	return ink, colour, total, nil
}
