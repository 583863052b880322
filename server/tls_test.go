package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, PEM, and
// returns their paths and the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "verdict test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err = x509.ParseCertificate(der)
	require.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return certFile, keyFile, cert
}

// TestServeHTTPS serves with a certificate: a client that trusts it gets
// answers, plain HTTP gets none, and the session cookie is Secure without
// being asked for.
func TestServeHTTPS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, cert := selfSigned(t)
	st, err := store.Open(context.Background(), storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	srv, err := New(st, Config{SpoolDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l, certFile, keyFile) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })

	pool := x509.NewCertPool()
	pool.AddCert(cert)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "https://" + l.Addr().String()
	resp, err := client.Get(base + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, uint16(tls.VersionTLS13), resp.TLS.Version)

	// Plain HTTP to the TLS port gets no answer of verdict's.
	resp, err = http.Get("http://" + l.Addr().String() + "/healthz")
	if err == nil {
		resp.Body.Close()
		require.NotEqual(t, 200, resp.StatusCode)
	}

	// Signing in over HTTPS sets a Secure, HttpOnly, SameSite=Strict cookie.
	_, secret, err := st.CreateToken(context.Background(), "browser", store.TokenReader, "")
	require.NoError(t, err)
	resp, err = client.Get(base + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	var csrf string
	for _, c := range resp.Cookies() {
		if c.Name == loginCSRFCookie {
			csrf = c.Value
			require.True(t, c.Secure)
		}
	}
	require.NotEmpty(t, csrf)
	resp, err = client.PostForm(base+"/login", url.Values{"token": {secret}, "csrf": {csrf}, "next": {"/"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			session = c
		}
	}
	require.NotNil(t, session)
	require.True(t, session.Secure)
	require.True(t, session.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, session.SameSite)
	resp, err = client.Get(base + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"))
}
