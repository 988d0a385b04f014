package mockapi

import (
	"bytes"
	"compress/gzip"
	"fmt"
)

// bombBytes is the size of ArchiveBomb's file of zeros.
const bombBytes = 64 << 20

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// sparseArchive is a gzip'd tar of one pax sparse file (format 1.0) whose
// real size is 2^62 bytes, written block by block: Go's archive/tar writes
// no sparse entries.
func sparseArchive() []byte {
	var records string
	for _, kv := range []string{"GNU.sparse.major=1", "GNU.sparse.minor=0", "GNU.sparse.name=index.html", "GNU.sparse.realsize=4611686018427387904"} {
		records += paxRecord(kv)
	}
	// The data: the sparse map (one region of one byte at the very end),
	// then that byte.
	sparseMap := make([]byte, 512)
	copy(sparseMap, "1\n4611686018427387903\n1\n")
	var tarball bytes.Buffer
	tarball.Write(tarHeader("PaxHeaders/index.html", 'x', len(records)))
	tarball.Write(padBlock([]byte(records)))
	tarball.Write(tarHeader("GNUSparseFile.0/index.html", '0', 513))
	tarball.Write(sparseMap)
	tarball.Write(padBlock([]byte("<")))
	tarball.Write(make([]byte, 1024)) // the end-of-archive blocks
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	_, _ = gz.Write(tarball.Bytes())
	_ = gz.Close()
	return buf.Bytes()
}

// paxRecord is "<length> <key>=<value>\n", the length counting itself.
func paxRecord(kv string) string {
	n := len(kv) + 3
	for len(fmt.Sprint(n))+len(kv)+2 != n {
		n = len(fmt.Sprint(n)) + len(kv) + 2
	}
	return fmt.Sprintf("%d %s\n", n, kv)
}

// tarHeader is a ustar header block.
func tarHeader(name string, typeflag byte, size int) []byte {
	hdr := make([]byte, 512)
	copy(hdr[0:], name)
	copy(hdr[100:], "0000644\x00")
	copy(hdr[108:], "0000000\x00")
	copy(hdr[116:], "0000000\x00")
	copy(hdr[124:], fmt.Sprintf("%011o\x00", size))
	copy(hdr[136:], "15072145200\x00")
	hdr[156] = typeflag
	copy(hdr[257:], "ustar\x0000")
	copy(hdr[148:156], "        ")
	var sum int
	for _, b := range hdr {
		sum += int(b)
	}
	copy(hdr[148:], fmt.Sprintf("%06o\x00 ", sum))
	return hdr
}

// padBlock pads b with zeros to a whole number of 512-byte blocks.
func padBlock(b []byte) []byte {
	return append(b, make([]byte, (512-len(b)%512)%512)...)
}
