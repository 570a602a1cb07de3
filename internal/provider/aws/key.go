package aws

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	"github.com/kyku/action/internal/provider/property"
)

// keyKind maps SshKey to an imported key pair named by the cloud name; its
// ID is the key pair ID ("key-…"). AWS returns the key material with its
// own comment, so the requested comment is kept in the kyku:keyComment tag
// and Read rebuilds publicKey as "<type> <material> <comment>".
type keyKind struct{ p *Provider }

const tagKeyComment = "kyku:keyComment"

func keyComment(publicKey string) string {
	f := strings.Fields(publicKey)
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[2:], " ")
}

func keyObject(k ec2api.KeyPairInfo) provider.Object {
	tags := fromEC2Tags(k.Tags)
	props := map[string]any{}
	if f := strings.Fields(aws.ToString(k.PublicKey)); len(f) >= 2 {
		key := f[0] + " " + f[1]
		if c := tags[tagKeyComment]; c != "" {
			key += " " + c
		}
		props["publicKey"] = key
	}
	return provider.NewObject(aws.ToString(k.KeyPairId), aws.ToString(k.KeyName), property.SetTags(props, tags, systemTag), nil)
}

func keyTags(r provider.Resource) map[string]string {
	if c := keyComment(property.String(r.Properties, "publicKey")); c != "" {
		return wantTags(r, map[string]string{tagKeyComment: c})
	}
	return wantTags(r, nil)
}

// describe reads key pairs (not a paginated API).
func (k keyKind) describe(ctx context.Context, m mode, in *ec2api.DescribeKeyPairsInput, what string) (ec2api.KeyPairInfo, error) {
	var out *ec2api.DescribeKeyPairsOutput
	err := k.p.call(ctx, "describe key pairs", m, func(ctx context.Context) (err error) {
		in.IncludePublicKey = aws.Bool(true)
		out, err = k.p.ec2.DescribeKeyPairs(ctx, in)
		return err
	})
	if err != nil {
		return ec2api.KeyPairInfo{}, err
	}
	if len(out.KeyPairs) == 0 {
		return ec2api.KeyPairInfo{}, provider.NotFound("key pair " + what)
	}
	return out.KeyPairs[0], nil
}

func (k keyKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	kp, err := k.describe(ctx, plain, &ec2api.DescribeKeyPairsInput{KeyNames: []string{name}}, name)
	if err != nil {
		return provider.Object{}, err
	}
	return keyObject(kp), nil
}

func (k keyKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.readAs(ctx, plain, id)
}

func (k keyKind) readAs(ctx context.Context, m mode, id string) (provider.Object, error) {
	kp, err := k.describe(ctx, m, &ec2api.DescribeKeyPairsInput{KeyPairIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	return keyObject(kp), nil
}

func (k keyKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := required(r, "publicKey"); err != nil {
		return provider.Object{}, err
	}
	if obj, err := k.Lookup(ctx, r.CloudName); err == nil || !provider.IsNotFound(err) {
		return obj, err
	}
	// Key names are unique: a resent import that had landed gets
	// InvalidKeyPair.Duplicate, which means "ours".
	var out *ec2api.ImportKeyPairOutput
	err := k.p.call(ctx, "import key pair", plain, func(ctx context.Context) (err error) {
		out, err = k.p.ec2.ImportKeyPair(ctx, &ec2api.ImportKeyPairInput{
			KeyName:           aws.String(r.CloudName),
			PublicKeyMaterial: []byte(property.String(r.Properties, "publicKey")),
			TagSpecifications: tagSpec(ec2api.ResourceTypeKeyPair, keyTags(r)),
		})
		return err
	})
	if apiCode(err) == "InvalidKeyPair.Duplicate" {
		kp, err := k.describe(ctx, settling, &ec2api.DescribeKeyPairsInput{KeyNames: []string{r.CloudName}}, r.CloudName)
		if err != nil {
			return provider.Object{}, err
		}
		return keyObject(kp), nil
	}
	if err != nil {
		return provider.Object{}, err
	}
	return k.readAs(ctx, settling, aws.ToString(out.KeyPairId))
}

func (k keyKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	kp, err := k.describe(ctx, plain, &ec2api.DescribeKeyPairsInput{KeyPairIds: []string{id}}, id)
	if err != nil {
		return provider.Object{}, err
	}
	want := keyTags(r)
	want[tagNameAWS] = aws.ToString(kp.KeyName)
	if err := k.p.syncEC2Tags(ctx, id, fromEC2Tags(kp.Tags), want); err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, id)
}

func (k keyKind) Delete(ctx context.Context, id string) error {
	if _, err := k.Read(ctx, id); err != nil {
		return err
	}
	return k.p.call(ctx, "delete key pair", plain, func(ctx context.Context) error {
		_, err := k.p.ec2.DeleteKeyPair(ctx, &ec2api.DeleteKeyPairInput{KeyPairId: aws.String(id)})
		return err
	})
}
