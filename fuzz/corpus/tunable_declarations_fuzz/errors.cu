// kopt:tune B values=1 role=blocksize
// kopt:tuning
#define B 2
