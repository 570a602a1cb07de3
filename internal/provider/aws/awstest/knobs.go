package awstest

import (
	"net/http"
	"time"
)

// Epoch is the fake's clock when it starts; each request advances it by a
// second.
var Epoch = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// Now is the fake's clock (give it to the provider as its clock).
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Advance moves the fake's clock forward by d (hours pass between plans).
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(d)
}

// DefaultLag is how many requests (to any action) an object created a
// moment ago stays invisible to a Describe or call naming its ID or ARN,
// as AWS's eventual consistency does (Amazon EC2 API Reference, Eventual
// consistency; ELBv2 and RDS alike, which is why terraform-provider-aws
// retries not-found on reading a new target group, load balancer or DB
// instance): the request right after a create gets InvalidGroup.NotFound,
// InvalidSubnetID.NotFound, TargetGroupNotFound, LoadBalancerNotFound,
// DBInstanceNotFound, … (SetLag changes it).
const DefaultLag = 2

// SetLag sets how many requests a new EC2 object stays invisible by ID
// (0: visible at once).
func (s *Server) SetLag(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lagTicks = max(0, n)
}

// born starts the eventual-consistency lag of a new object.
func (s *Server) born(id string) {
	if s.lagTicks > 0 {
		s.lag[id] = s.lagTicks
	}
}

// lagging reports whether id was created too recently to be seen by ID.
func (s *Server) lagging(id string) bool { return s.lag[id] > 0 }

// tick is the fake's clock: every request advances it by one. Lags run
// out, the network interfaces of deleted load balancers and databases
// linger and then go, deregistered targets drain and then go.
func (s *Server) tick() {
	s.now = s.now.Add(time.Second)
	for id := range s.lag {
		if s.lag[id]--; s.lag[id] <= 0 {
			delete(s.lag, id)
		}
	}
	for id, n := range s.st.ENIs {
		if n.Linger > 0 {
			if n.Linger--; n.Linger == 0 {
				delete(s.st.ENIs, id)
			}
		}
	}
	for _, tg := range s.st.TGs {
		for id, left := range tg.Draining {
			if left <= 1 {
				delete(tg.Draining, id)
			} else {
				tg.Draining[id] = left - 1
			}
		}
	}
}

// drop is one connection to close without an answer.
type drop struct {
	n     int
	after bool
}

// DropConnection makes the next n requests of action fail on the
// network: the server closes the connection without answering. With
// after, the request is carried out first (a lost response: the object
// exists, the client does not know); without, it never happens.
func (s *Server) DropConnection(action string, n int, after bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drops[action] = append(s.drops[action], drop{n: n, after: after})
}

// dropped consumes a matching drop for action at this point (before or
// after the request is carried out) and closes the connection.
func (s *Server) dropped(w http.ResponseWriter, action string, after bool) bool {
	ds := s.drops[action]
	if len(ds) == 0 || ds[0].after != after {
		return false
	}
	if ds[0].n--; ds[0].n <= 0 {
		s.drops[action] = ds[1:]
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot drop the connection", http.StatusInternalServerError)
		return true
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		conn.Close()
	}
	return true
}

// FailLaunch makes the next n instances RunInstances starts fail to boot:
// they go from pending to terminated with Server.InternalError, as EC2
// does when a launch fails after it was accepted.
func (s *Server) FailLaunch(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.launches += n
}

// Stall makes the next n requests of action go unanswered: the server
// holds them until the client times out (its HTTP client's timeout) or
// cancels, as a network that drops packets would.
func (s *Server) Stall(action string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalls[action] += n
}

func (s *Server) stalled(action string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stalls[action] <= 0 {
		return false
	}
	s.stalls[action]--
	s.calls[action]++
	return true
}

// Quotas the fake enforces, as AWS's defaults are (Amazon VPC User Guide,
// Amazon VPC quotas: security groups).
const (
	MaxRulesPerGroup      = 60 // inbound, and outbound, rules per security group
	MaxGroupsPerInterface = 5  // security groups per network interface
)
