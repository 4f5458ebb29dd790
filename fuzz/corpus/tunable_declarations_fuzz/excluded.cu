// kopt:tune B values=1,2 role=other
// kopt:restrict B > 2
int x = B;
