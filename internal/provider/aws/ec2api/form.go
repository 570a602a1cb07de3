package ec2api

import (
	"encoding/base64"
	"net/url"
	"strconv"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// form builds one request's parameters in EC2's Query dialect (Amazon
// EC2 API Reference, "Query requests" and "Query parameters" of each
// action): a list is Name.1, Name.2, …; a structure in a list is
// Name.1.Member; an absent optional value is not sent.
type form struct{ v url.Values }

func newForm() form { return form{url.Values{}} }

// at is the name of a list's i-th element (0-based i): prefix.i+1.
func at(prefix string, i int) string { return prefix + "." + strconv.Itoa(i+1) }

func (f form) str(name string, s *string) { awswire.SetString(f.v, name, s) }

func (f form) strs(name string, ss []string) { awswire.AddList(f.v, name, ss) }

// boolean sends b lowercase, as EC2 reads booleans.
func (f form) boolean(name string, b *bool) { awswire.SetBool(f.v, name, b) }

func (f form) int32(name string, n *int32) { awswire.SetInt32(f.v, name, n) }

// blob sends b base64-encoded, as EC2 reads a blob (ImportKeyPair's
// PublicKeyMaterial).
func (f form) blob(name string, b []byte) {
	if b != nil {
		f.v.Set(name, base64.StdEncoding.EncodeToString(b))
	}
}

// filters sends Filter.N.Name and Filter.N.Value.M.
func (f form) filters(fs []Filter) {
	for i, x := range fs {
		p := at("Filter", i)
		f.str(p+".Name", x.Name)
		f.strs(p+".Value", x.Values)
	}
}

// tags sends prefix.N.Key and prefix.N.Value (CreateTags, DeleteTags and
// a TagSpecification's Tag).
func (f form) tags(prefix string, ts []Tag) {
	for i, t := range ts {
		p := at(prefix, i)
		f.str(p+".Key", t.Key)
		f.str(p+".Value", t.Value)
	}
}

// tagSpecs sends TagSpecification.N.ResourceType and its
// TagSpecification.N.Tag.M.Key/Value.
func (f form) tagSpecs(specs []TagSpecification) {
	for i, s := range specs {
		p := at("TagSpecification", i)
		if s.ResourceType != "" {
			f.v.Set(p+".ResourceType", string(s.ResourceType))
		}
		f.tags(p+".Tag", s.Tags)
	}
}

// perms sends IpPermissions.N.IpProtocol, .FromPort, .ToPort and
// .IpRanges.M.CidrIp.
func (f form) perms(ps []IpPermission) {
	for i, x := range ps {
		p := at("IpPermissions", i)
		f.str(p+".IpProtocol", x.IpProtocol)
		f.int32(p+".FromPort", x.FromPort)
		f.int32(p+".ToPort", x.ToPort)
		for j, r := range x.IpRanges {
			f.str(at(p+".IpRanges", j)+".CidrIp", r.CidrIp)
		}
	}
}
