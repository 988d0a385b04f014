package sitegen

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
)

const (
	// chunkSize is the size of a chunk of padding coded ahead of time, a
	// multiple of the tar block.
	chunkSize = 1 << 20
	// poolSize is how many distinct chunks a padding repeats.
	poolSize = 8
)

// codedChunk is a run of padding as deflate blocks ended by a sync flush,
// and the CRC-32 of its bytes: only the coded form is kept.
type codedChunk struct {
	deflated []byte
	crc      uint32
}

// padding draws a padding's bytes from a seed and codes them, the pool's
// chunks on first use.
type padding struct {
	rng  *rand.ChaCha8
	pool []codedChunk
}

func newPadding(seed uint64) *padding {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	return &padding{rng: rand.NewChaCha8(key)}
}

// chunk is the pool's chunk i, coded when first asked for; chunks are asked
// for in order.
func (p *padding) chunk(i int) codedChunk {
	if i == len(p.pool) {
		p.pool = append(p.pool, p.code(chunkSize))
	}
	return p.pool[i]
}

// code draws n bytes and codes them.
func (p *padding) code(n int64) codedChunk {
	raw := make([]byte, n)
	_, _ = p.rng.Read(raw) // ChaCha8 never fails
	return codedChunk{deflated: fixedHuffman(raw), crc: crc32.ChecksumIEEE(raw)}
}

// literalCode is the fixed Huffman code of each byte (RFC 1951 3.2.6):
// 0-143 in 8 bits from 0x30, 144-255 in 9 bits from 0x190, bit-reversed as
// deflate packs Huffman codes from their most significant bit.
var literalCode = func() (codes [256]struct {
	bits uint16
	n    uint8
}) {
	for b := range codes {
		code, n := 0x30+b, 8
		if b >= 144 {
			code, n = 0x190+b-144, 9
		}
		codes[b].bits, codes[b].n = bits.Reverse16(uint16(code))>>(16-n), uint8(n)
	}
	return codes
}()

// fixedHuffman codes raw as one deflate block of fixed Huffman literals,
// then an empty stored block (a sync flush) so that it ends on a byte
// boundary and anything may follow.
func fixedHuffman(raw []byte) []byte {
	out := make([]byte, 0, len(raw)+len(raw)/8+16)
	var acc uint64 // bits not yet written, the first in the lowest
	var n uint
	put := func(v uint64, width uint) {
		acc |= v << n
		for n += width; n >= 8; n -= 8 {
			out = append(out, byte(acc))
			acc >>= 8
		}
	}
	put(0b010, 3) // not the last block; type 01, fixed Huffman codes
	for _, b := range raw {
		c := literalCode[b]
		put(uint64(c.bits), uint(c.n))
	}
	put(0, 7) // end of block: symbol 256, seven zero bits
	put(0, 3) // not the last block; type 00, stored
	if n > 0 {
		out = append(out, byte(acc))
	}
	return append(out, 0x00, 0x00, 0xff, 0xff) // length 0 and its complement
}

// crc32Combine returns the CRC-32 of A followed by B from the CRCs of both
// and B's length, as zlib's crc32_combine: appending lenB zero bits to A is
// a linear map in GF(2), applied by repeated squaring.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.IEEE // the operator for one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four zero bits
	for {
		gf2Square(&even, &odd)
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat *[32]uint32) {
	for n := range mat {
		square[n] = gf2Times(mat, mat[n])
	}
}
