package awstest

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
)

// DefaultPageSize is how many objects a paginated Describe returns per
// page unless SetPageSize says otherwise: small on purpose, so a client
// that reads only the first page misses objects in every test.
const DefaultPageSize = 2

// SetPageSize sets the page size of every paginated Describe (at least 1).
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = max(1, n)
}

// page cuts one page out of keys (sorted), as AWS pages a listing: the
// request's token (tokenParam) says where the page starts, its size is
// the smaller of the fake's page size and the request's own maximum
// (sizeParam), and the returned token is "" on the last page. Filters are
// applied by the caller to the page, after cutting it, so — as on EC2 —
// a page may come back empty with a token for the next.
func (s *Server) page(f form, tokenParam, sizeParam string, keys []string) ([]string, string, *apiError) {
	start := 0
	if tok := f.get(tokenParam); tok != "" {
		// A token names the last key of the previous page, so a page
		// stays right when objects come and go between requests.
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		after, ok := strings.CutPrefix(string(raw), "after:")
		if err != nil || !ok {
			return nil, "", errf(400, "InvalidParameterValue", "Invalid value '%s' for %s", tok, tokenParam)
		}
		start = sort.SearchStrings(keys, after)
		if start < len(keys) && keys[start] == after {
			start++
		}
	}
	size := s.pageSize
	if n, err := strconv.Atoi(f.get(sizeParam)); err == nil && n > 0 && n < size {
		size = n
	}
	end := min(start+size, len(keys))
	next := ""
	if end < len(keys) {
		next = base64.RawURLEncoding.EncodeToString([]byte("after:" + keys[end-1]))
	}
	return keys[start:end], next, nil
}

// ec2Page pages an EC2 Describe (NextToken, MaxResults).
func (s *Server) ec2Page(f form, keys []string) ([]string, []node, *apiError) {
	ks, next, e := s.page(f, "NextToken", "MaxResults", keys)
	var tail []node
	if next != "" {
		tail = append(tail, tx("nextToken", next))
	}
	return ks, tail, e
}

// markerPage pages an ELBv2 (Marker, PageSize → NextMarker) or RDS
// (Marker, MaxRecords → Marker) Describe.
func (s *Server) markerPage(f form, sizeParam, outName string, keys []string) ([]string, []node, *apiError) {
	ks, next, e := s.page(f, "Marker", sizeParam, keys)
	var tail []node
	if next != "" {
		tail = append(tail, tx(outName, next))
	}
	return ks, tail, e
}
