// A real OpenID Connect provider for the SSO tests: panva's certified oidc-provider with
// its development login and consent forms. Any login name is accepted (the password is
// not checked): the name is the account's email address, verified unless it starts with
// "unverified+". PKCE is required, as a careful production provider would. EMAILS_FILE, if
// given, is a JSON object {login: address} read at each sign-in: the address a login's
// subject has now (a person whose address changed at the provider keeps their subject).
//
// node provider.mjs PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI [EMAILS_FILE]
import { existsSync, readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, clientId, clientSecret, redirectUri, emailsFile] = process.argv.slice(2);
const changedEmail = (id) =>
  emailsFile && existsSync(emailsFile) ? JSON.parse(readFileSync(emailsFile, 'utf8'))[id] : undefined;
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  pkce: { required: () => true },
  async findAccount(ctx, id) {
    const unverified = id.startsWith('unverified+');
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: changedEmail(id) ?? (unverified ? id.slice('unverified+'.length) : id),
          email_verified: !unverified,
          name: id.split('@')[0],
        };
      },
    };
  },
});

provider.listen(Number(port), '127.0.0.1', () => {
  // The fixture waits for this line before it starts a flow.
  console.log(`oidc-provider ready at ${issuer}`);
});
