/* va_calibrate.c -- independent C re-implementation of the Vogels-Abbott CUBA/COBA networks
 * (examples/cuba.neuro, examples/coba.neuro) under the neuroc step contract, used once to
 * calibrate the rate / CV ranges in tests/e2e/vogels_abbott.py. Not built by CMake.
 *
 *   cc -O2 -o va_calibrate va_calibrate.c -lm
 *   ./va_calibrate 0 0 SEED   # CUBA      ./va_calibrate 1 0 SEED   # COBA
 *
 * Per step: arrivals of last step's spikes (delay 1 step) add w into the receptor input;
 * receptor update (I += x or g += x); emit into I_syn (COBA: g (E - V) with V of the
 * previous step); LIF exact step with I_syn held constant unless refractory; threshold,
 * reset, 5 ms = 50 frozen steps; receptor decay by exp(-dt/tau). Connectivity: each pair
 * with p = 0.02 (autapses allowed, as fixed_prob by default and as Brian's p=0.02).
 * Prints: fraction of neurons active, E/I/total rates, mean ISI CV (>= 3 ISIs), spikes per
 * 100 ms window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
static unsigned long long s=88172645463325252ULL;
static double ur(void){s^=s<<13;s^=s>>7;s^=s<<17;return (s>>11)*(1.0/9007199254740992.0);}
static double nr(void){double u=ur(),v=ur();if(u<1e-300)u=1e-300;return sqrt(-2*log(u))*cos(2*M_PI*v);}
int main(int argc,char**argv){
  int coba=atoi(argv[1]); double Ie=argc>2?atof(argv[2]):0; s+=argc>3?atoi(argv[3]):0;
  int N=4000,NE=3200; double dt=0.1,C=200,gL=10,EL=coba?-60:-49,Vth=-50,Vr=-60; int ref=50;
  double *V=malloc(N*8),*ge=calloc(N,8),*gi=calloc(N,8),*xe=calloc(N,8),*xi=calloc(N,8); int *rc=calloc(N,4);
  int **post=malloc(N*sizeof(int*)),*np=calloc(N,4);
  for(int i=0;i<N;i++){post[i]=malloc(200*4);for(int j=0;j<N;j++)if(ur()<0.02)post[i][np[i]++]=j;}
  for(int i=0;i<N;i++){ if(coba){V[i]=-60+5*nr()-5;ge[i]=40+15*nr();gi[i]=200+120*nr();} else V[i]=Vr+ur()*(Vth-Vr);}
  double we=coba?6:16.2, wi=coba?67:-90, te=5,ti=10;
  int *sp=malloc(N*4),nsp=0; long cntE=0,cntI=0; int win[10]={0};
  long *cnt=calloc(N,8); double *last=calloc(N,8),*sisi=calloc(N,8),*sisi2=calloc(N,8); long *nisi=calloc(N,8);
  double pe=exp(-dt/te),pi_=exp(-dt/ti),pm=exp(-dt*gL/C);
  for(int st=0;st<10000;st++){
    memset(xe,0,N*8);memset(xi,0,N*8);
    for(int k=0;k<nsp;k++){int i=sp[k];for(int q=0;q<np[i];q++){int j=post[i][q]; if(i<NE)xe[j]+=we; else xi[j]+=wi;}}
    nsp=0;
    for(int j=0;j<N;j++){
      ge[j]+=xe[j]; gi[j]+=xi[j];
      double I = coba? ge[j]*(0-V[j])+gi[j]*(-80-V[j]) : ge[j]+gi[j];
      if(rc[j]>0){rc[j]--;} else {
        double Vinf=EL+(I+Ie)/gL; V[j]=Vinf+(V[j]-Vinf)*pm;
        if(V[j]>=Vth){V[j]=Vr;rc[j]=ref;sp[nsp++]=j; if(j<NE)cntE++; else cntI++; win[st/1000]++;
          double t=(st+1)*dt; if(cnt[j]>0){double d=t-last[j];sisi[j]+=d;sisi2[j]+=d*d;nisi[j]++;} cnt[j]++; last[j]=t;}
      }
      ge[j]*=pe; gi[j]*=pi_;
    }
  }
  int act=0; for(int j=0;j<N;j++) if(cnt[j]>0) act++; printf("active %.3f ",act/4000.0);
  double cvs=0;int ncv=0; for(int j=0;j<N;j++) if(nisi[j]>=3){double m=sisi[j]/nisi[j],v=sisi2[j]/nisi[j]-m*m; cvs+=sqrt(v>0?v:0)/m; ncv++;}
  printf("E %.2f Hz I %.2f Hz tot %.2f Hz meanCV %.3f (n=%d) win:",cntE/3200.0,cntI/800.0,(cntE+cntI)/4000.0,cvs/ncv,ncv);
  for(int w=0;w<10;w++) printf(" %d",win[w]);
  printf("\n");
}
