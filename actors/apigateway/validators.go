package apigateway

import (
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// ValidatorInput is a CreateRequestValidator request.
type ValidatorInput struct {
	Name                      string
	ValidateRequestBody       bool
	ValidateRequestParameters bool
}

// ValidatorNotFound is the error for an unknown request validator, or an
// unknown API on an operation naming one (RV-04, RV-07).
func ValidatorNotFound() *awswire.Error {
	return notFound("Invalid Request Validator identifier specified")
}

func validatorNameTaken(st *RestAPI, name, except string) bool {
	if name == "" {
		return false
	}
	for _, v := range st.Validators.All() {
		if v.Name == name && v.ID != except {
			return true
		}
	}
	return false
}

func validatorNameConflict() *awswire.Error { return Conflict("Request Validator name must be unique") }

// CreateRequestValidator adds a request validator to API apiID.
func (s *Service) CreateRequestValidator(sc awswire.Scope, apiID string, in ValidatorInput) (*RequestValidator, error) {
	// AWS answers a missing API with a 400 here (RV-01).
	gone := BadRequest("Invalid REST API identifier specified")
	return mutate(s, sc, apiID, gone, func(t *Tx) (*RequestValidator, error) {
		st := t.State()
		if validatorNameTaken(st, in.Name, "") {
			return nil, validatorNameConflict()
		}
		v := &RequestValidator{
			ID:                        NewID(6, func(id string) bool { _, ok := st.Validators.Get(id); return ok }),
			Name:                      in.Name,
			ValidateRequestBody:       in.ValidateRequestBody,
			ValidateRequestParameters: in.ValidateRequestParameters,
		}
		t.PutValidator(v)
		return v, nil
	})
}

// GetRequestValidator returns request validator id.
func (s *Service) GetRequestValidator(sc awswire.Scope, apiID, id string) (*RequestValidator, error) {
	r, err := s.readAPI(sc, apiID, ValidatorNotFound())
	if err != nil {
		return nil, err
	}
	v, ok := r.Validators.Get(id)
	if !ok {
		return nil, ValidatorNotFound()
	}
	return v, nil
}

// RequestValidators returns the API's request validators in id order.
func (s *Service) RequestValidators(sc awswire.Scope, apiID string) ([]*RequestValidator, error) {
	r, err := s.readAPI(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	out := slices.Collect(r.Validators.Values())
	slices.SortFunc(out, func(a, b *RequestValidator) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// validatorPatch are the paths UpdateRequestValidator accepts (RV-10..12).
var validatorPatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/name", []string{"replace"}},
	{"/validateRequestParameters", []string{"replace"}},
	{"/validateRequestBody", []string{"replace"}},
}}

// UpdateRequestValidator applies patch operations to a request validator.
func (s *Service) UpdateRequestValidator(sc awswire.Scope, apiID, id string, ops []PatchOp) (*RequestValidator, error) {
	var v Validation
	v.PatchOps("updateRequestValidatorInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := checkPatch(validatorPatch, ops); err != nil {
		return nil, err
	}
	return mutate(s, sc, apiID, ValidatorNotFound(), func(t *Tx) (*RequestValidator, error) {
		st := t.State()
		cur, ok := st.Validators.Get(id)
		if !ok {
			return nil, ValidatorNotFound()
		}
		rv := *cur
		for _, o := range ops {
			// A flag is true only when the value says so: AWS reads a
			// missing value as false (B.8).
			on := strings.EqualFold(o.Val(), "true")
			switch o.Path {
			case "/name":
				if strings.TrimSpace(o.Val()) == "" {
					return nil, BadRequest("Request Validator name cannot be blank")
				}
				rv.Name = o.Val()
			case "/validateRequestParameters":
				rv.ValidateRequestParameters = on
			case "/validateRequestBody":
				rv.ValidateRequestBody = on
			}
		}
		if rv.Name != cur.Name && validatorNameTaken(st, rv.Name, id) {
			return nil, validatorNameConflict()
		}
		t.PutValidator(&rv)
		return &rv, nil
	})
}

// DeleteRequestValidator deletes a request validator no method uses.
func (s *Service) DeleteRequestValidator(sc awswire.Scope, apiID, id string) error {
	_, err := mutate(s, sc, apiID, ValidatorNotFound(), func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Validators.Get(id); !ok {
			return struct{}{}, ValidatorNotFound()
		}
		path, method, used := firstMethod(st.Resources, func(m *Method) bool { return m.RequestValidatorID == id })
		if used {
			return struct{}{}, Conflict("Cannot delete request validator, is referenced in method: %s/%s", method, path)
		}
		t.DeleteValidator(id)
		return struct{}{}, nil
	})
	return err
}
