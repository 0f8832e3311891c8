// A real OpenID Connect provider for the single sign-on tests: panva's certified `oidc-provider` with its
// development login pages (any account name signs in; the password is not checked).
// Usage: node provider.mjs PORT REDIRECT_URI   (prints "listening" when it accepts requests)
// Accounts: the login name is the subject; `groups` are read from the ACCOUNT_GROUPS environment variable
// (JSON: {"login": ["group", ...]}).
import Provider from 'oidc-provider';

const [port, redirectUri] = process.argv.slice(2);
const groups = JSON.parse(process.env.ACCOUNT_GROUPS || '{}');
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'dialeval',
    client_secret: 'dialeval-test-secret',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  }],
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
    groups: ['groups'],
  },
  pkce: { required: () => false },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id, email: `${id}@example.org`, email_verified: true, preferred_username: id, name: id,
          groups: groups[id] || [],
        };
      },
    };
  },
  // consent is given for the test's own client: the login page is the one step
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid email profile groups');
    await grant.save();
    return grant;
  },
});

provider.listen(Number(port), '127.0.0.1', () => console.log('listening'));
