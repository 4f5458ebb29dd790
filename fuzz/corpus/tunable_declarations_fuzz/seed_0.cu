// kopt:tune BLOCK_SIZE values=64,128,256,512 role=block_size
// kopt:tune ITEMS range=1..8 step=*2 role=items_per_thread
// kopt:restrict BLOCK_SIZE * ITEMS <= 4096
// kopt:restrict BLOCK_SIZE <= n
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
__global__ void k(float* x) { x[threadIdx.x * ITEMS] = BLOCK_SIZE; }
