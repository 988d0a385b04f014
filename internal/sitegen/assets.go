package sitegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
)

// Assets are the files every site holds, whatever its pages, and the names
// the pages refer to them by.
type Assets struct {
	Files                                        []File
	CSS, Runtime, App, Font, Logo, Hero, Favicon string
}

// SiteAssets are the assets of every site. Their names carry a digest of
// their content, as a bundler names them, so they never change between
// sites. They are built once and shared: do not modify them.
func SiteAssets() Assets { return siteAssets() }

var siteAssets = sync.OnceValue(func() Assets {
	var a Assets
	add := func(dir, base, ext, body string) string {
		sum := sha256.Sum256([]byte(body))
		name := fmt.Sprintf("%s%s.%s.%s", dir, base, hex.EncodeToString(sum[:4]), ext)
		a.Files = append(a.Files, File{name, body})
		return name
	}
	a.Font = add("assets/fonts/", "inter-var", "woff2", woff2())
	a.Logo = add("assets/images/", "logo", "svg",
		`<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2b6cb0"/></svg>`+"\n")
	a.Hero = add("assets/images/", "hero", "png", pngImage(64, 16))
	a.CSS = add("assets/", "main", "css", fmt.Sprintf(
		"@font-face{font-family:Inter;src:url(%s) format(\"woff2\");font-display:swap}\n"+
			"body{font-family:Inter,system-ui,sans-serif;margin:0 auto;max-width:48rem;padding:1rem}\n"+
			"nav a{margin-right:1rem}\n.hero{background:url(%s) no-repeat;min-height:16px}\n",
		strings.TrimPrefix(a.Font, "assets/"), strings.TrimPrefix(a.Hero, "assets/")))
	a.Runtime = add("_next/static/chunks/", "webpack", "js",
		"(self.webpackChunk_N_E=self.webpackChunk_N_E||[]).push([[0],{}]);\n")
	a.App = add("_next/static/chunks/", "app", "js",
		"document.addEventListener('DOMContentLoaded',function(){document.body.dataset.ready='1';});\n")
	a.Favicon = "favicon.ico"
	a.Files = append(a.Files, File{a.Favicon, icon(pngImage(16, 16))})
	return a
})

// pngImage is a valid PNG of a w×h gradient.
func pngImage(w, h int) string {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: 0x2b, G: uint8(0x6c + 4*x), B: uint8(0xb0 + 4*y), A: 0xff})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // an in-memory image: no error
	return b.String()
}

// icon wraps a 16×16 PNG in an ICO container, as favicon.ico files are
// written today: a directory of one entry pointing at the PNG.
func icon(pngData string) string {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le([3]uint16{0, 1, 1})                      // reserved, type icon, one image
	le([4]uint8{16, 16, 0, 0})                  // width, height, no palette, reserved
	le([2]uint16{1, 32})                        // colour planes, bits per pixel
	le([2]uint32{uint32(len(pngData)), 6 + 16}) // size, offset after the directory
	b.WriteString(pngData)
	return b.String()
}

// woff2 is the header of a WOFF2 font (signature, flavour, length, no
// tables): enough for a type sniffer, not for a renderer.
func woff2() string {
	var b bytes.Buffer
	b.WriteString("wOF2")
	_ = binary.Write(&b, binary.BigEndian, struct {
		Flavor                       uint32
		Length                       uint32
		NumTables, Reserved          uint16
		TotalSfntSize, CompressedLen uint32
		Major, Minor                 uint16
		MetaOffset, MetaLength       uint32
		MetaOrigLength               uint32
		PrivOffset, PrivLength       uint32
	}{Flavor: 0x00010000, Length: 48, TotalSfntSize: 12, Major: 1})
	return b.String()
}
