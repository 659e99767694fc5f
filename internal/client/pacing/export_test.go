package pacing

import (
	"net/http"
	"time"
)

const (
	ShareRefused = shareRefused
	ShareRise    = shareRise
	ShareCut     = shareCut
	FirstCut     = firstCut
	MinStep      = minStep
)

func NewPacer() *Pacer { return &Pacer{tokens: -1, limit: -1} }

func (p *Pacer) ShareNow(now time.Time) float64 { return p.shareNow(now) }

func (p *Pacer) HeaderRate(now time.Time) float64 { return p.headerRate(now) }

func (p *Pacer) Rate(now time.Time) float64 { return p.rate(now) }

type Quota struct {
	By        string
	Remaining int64
	Reset     time.Duration
}

func ReadQuota(h http.Header, now time.Time) (Quota, bool) {
	q, ok := readQuota(h, now)
	return Quota{By: q.by, Remaining: q.remaining, Reset: q.reset}, ok
}

const (
	MinGap    = minGap
	MaxGap    = maxGap
	BlindSpan = blindSpan
)
