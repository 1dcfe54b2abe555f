package ghfake

// The double's App side, as the tests of this package's callers still
// reach it until it moves to its own package.

// AddApp: see Apps.AddApp.
func (g *GitHub) AddApp(appID int64) ([]byte, error) { return g.apps.AddApp(appID) }

// SetAppSlug: see Apps.SetAppSlug.
func (g *GitHub) SetAppSlug(appID int64, slug string) error { return g.apps.SetAppSlug(appID, slug) }

// AddInstallation: see Apps.AddInstallation.
func (g *GitHub) AddInstallation(appID, installationID int64, owner string, repos ...string) error {
	return g.apps.AddInstallation(appID, installationID, owner, repos...)
}

// AddUserToken: see Apps.AddUserToken.
func (g *GitHub) AddUserToken(appID int64, login string) (string, error) {
	return g.apps.AddUserToken(appID, login)
}

// AppOAuth: see Apps.AppOAuth.
func (g *GitHub) AppOAuth(appID int64) (string, string, error) { return g.apps.AppOAuth(appID) }

// InstallationToken: see Apps.InstallationToken.
func (g *GitHub) InstallationToken(id int64) (string, error) { return g.apps.InstallationToken(id) }

// SignIn: see Apps.SignIn.
func (g *GitHub) SignIn(login string) { g.apps.SignIn(login) }

// SetDeviceFlow: see Apps.SetDeviceFlow.
func (g *GitHub) SetDeviceFlow(f DeviceFlow) { g.apps.SetDeviceFlow(f) }

// DeviceCodes: see Apps.DeviceCodes.
func (g *GitHub) DeviceCodes() []string { return g.apps.DeviceCodes() }

// ApproveDevice: see Apps.ApproveDevice.
func (g *GitHub) ApproveDevice(userCode, login string) error {
	return g.apps.ApproveDevice(userCode, login)
}

// DenyDevice: see Apps.DenyDevice.
func (g *GitHub) DenyDevice(userCode string) error { return g.apps.DenyDevice(userCode) }

// SlowDownDevice: see Apps.SlowDownDevice.
func (g *GitHub) SlowDownDevice(userCode string) error { return g.apps.SlowDownDevice(userCode) }
